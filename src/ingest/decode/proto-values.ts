import type { Attributes, AttributeValue } from '../../model/span.ts'
import { MAX_VALUE_DEPTH, setAttribute } from './attributes.ts'
import { int64ToValue } from './int64-decimal.ts'
import type { ProtobufReader } from './protobuf-reader.ts'
import { isRoleKeyAt, mayHoldMessagesAt, sharedRole } from './role-attributes.ts'

// Tags are (field number << 3) | wire type, as in opentelemetry/proto/common/v1/common.proto.
// KeyValue
const KV_KEY = 0x0a // 1 key
const KV_VALUE = 0x12 // 2 value: AnyValue
// AnyValue (oneof value)
const ANY_STRING = 0x0a // 1 string_value
const ANY_BOOL = 0x10 // 2 bool_value
const ANY_INT = 0x18 // 3 int_value: int64
const ANY_DOUBLE = 0x21 // 4 double_value
const ANY_ARRAY = 0x2a // 5 array_value: ArrayValue
const ANY_KVLIST = 0x32 // 6 kvlist_value: KeyValueList
const ANY_BYTES = 0x3a // 7 bytes_value
// ArrayValue / KeyValueList
const LIST_VALUES = 0x0a // 1 values

/** Reads one `KeyValue` message into `target`. */
export function readKeyValue(r: ProtobufReader, end: number, target: Attributes, depth: number): void {
  let key = ''
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === KV_KEY) key = r.key(r.lengthEnd(end))
    else if (tag === KV_VALUE) value = readAnyValue(r, r.lengthEnd(end), depth)
    else r.skip(tag, end)
  }
  setAttribute(target, key, value)
}

/** Reads one `AnyValue` message (`r.pos..end`), nested at most `MAX_VALUE_DEPTH` below `depth`. */
export function readAnyValue(r: ProtobufReader, end: number, depth: number): AttributeValue {
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case ANY_STRING:
        value = r.string(r.lengthEnd(end))
        break
      case ANY_BOOL:
        value = r.bool(end)
        break
      case ANY_INT:
        r.varint64(end)
        value = int64ToValue(r.lo, r.hi)
        break
      case ANY_DOUBLE:
        value = r.double(end)
        break
      case ANY_ARRAY:
        value = readArrayValue(r, r.lengthEnd(end), depth + 1)
        break
      case ANY_KVLIST:
        value = readKeyValueList(r, r.lengthEnd(end), depth + 1)
        break
      case ANY_BYTES:
        value = r.bytes(r.lengthEnd(end))
        break
      default:
        r.skip(tag, end)
    }
  }
  return value
}

function readArrayValue(r: ProtobufReader, end: number, depth: number): AttributeValue[] {
  checkDepth(r, depth)
  const values: AttributeValue[] = []
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === LIST_VALUES) values.push(readAnyValue(r, r.lengthEnd(end), depth))
    else r.skip(tag, end)
  }
  return values
}

function readKeyValueList(r: ProtobufReader, end: number, depth: number): Attributes {
  checkDepth(r, depth)
  const values: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === LIST_VALUES) readKeyValue(r, r.lengthEnd(end), values, depth)
    else r.skip(tag, end)
  }
  return values
}

function checkDepth(r: ProtobufReader, depth: number): void {
  if (depth > MAX_VALUE_DEPTH)
    throw r.error('too_deep', `values nested deeper than ${MAX_VALUE_DEPTH}`, r.pos)
}

/** {@link checkKeyValue}'s answer: the key is a role key (see `role-attributes.ts`). */
export const ROLE_KEY = 1
/** {@link checkKeyValue}'s answer, when asked to look: the value is a string that may hold messages. */
export const MAY_HOLD_MESSAGES = 2

/**
 * Checks one `KeyValue` message without building its value (the walk {@link readKeyValue} does,
 * with the same errors), so a lazily decoded span is rejected now, not when it is first read.
 * Returns {@link ROLE_KEY} when its key is a role key (see `role-attributes.ts`), plus, with
 * `lookForMessages`, {@link MAY_HOLD_MESSAGES} when its value is a string that may hold a message
 * list (`mayHoldMessagesAt`). `checkValue: false` skips the value unchecked (a message checked before).
 */
export function checkKeyValue(
  r: ProtobufReader,
  end: number,
  checkValue = true,
  lookForMessages = false,
): number {
  let role = 0
  let messages = 0
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === KV_KEY) {
      // The last key field wins, as in readKeyValue.
      const keyEnd = r.lengthEnd(end)
      role = isRoleKeyAt(r.buf, r.pos, keyEnd) ? ROLE_KEY : 0
      r.skipString(keyEnd)
    } else if (tag === KV_VALUE && checkValue) {
      if (checkAnyValue(r, r.lengthEnd(end), 0, lookForMessages)) messages = MAY_HOLD_MESSAGES
    } else r.skip(tag, end)
  }
  return role | messages
}

/** Reads every `KeyValue` field with tag `field` among the fields in `r.pos..end` into `target`. */
export function readKeyValues(r: ProtobufReader, end: number, field: number, target: Attributes): void {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === field) readKeyValue(r, r.lengthEnd(end), target, 0)
    else r.skip(tag, end)
  }
}

/**
 * Decodes the role `KeyValue` in `start..end` (checked already) into `roles`: a shared read-only
 * object for a span's first role, a copy once it has two.
 */
export function addRole(
  r: ProtobufReader,
  start: number,
  end: number,
  roles: Attributes | undefined,
): Attributes {
  r.pos = start
  const one: Attributes = {}
  readKeyValue(r, end, one, 0)
  const key = Object.keys(one)[0]!
  if (roles === undefined) return sharedRole(key, one[key]!)
  const merged = Object.isFrozen(roles) ? { ...roles } : roles
  merged[key] = one[key]!
  return merged
}

/**
 * Checks an `AnyValue`; with `lookForMessages`, returns whether it holds a string that may hold
 * messages (`mayHoldMessagesAt`, on the bytes: no string is made).
 */
function checkAnyValue(r: ProtobufReader, end: number, depth: number, lookForMessages = false): boolean {
  let messages = false
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ANY_ARRAY || tag === ANY_KVLIST) {
      const listEnd = r.lengthEnd(end)
      checkDepth(r, depth + 1)
      checkList(r, listEnd, depth + 1, tag === ANY_KVLIST)
    } else if (tag === ANY_STRING) {
      const stringEnd = r.lengthEnd(end)
      if (lookForMessages && mayHoldMessagesAt(r.buf, r.pos, stringEnd)) messages = true
      r.skipString(stringEnd)
    } else r.skip(tag, end)
  }
  return messages
}

function checkList(r: ProtobufReader, end: number, depth: number, keyValues: boolean): void {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag !== LIST_VALUES) r.skip(tag, end)
    else if (keyValues) checkNestedKeyValue(r, r.lengthEnd(end), depth)
    else checkAnyValue(r, r.lengthEnd(end), depth)
  }
}

function checkNestedKeyValue(r: ProtobufReader, end: number, depth: number): void {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === KV_VALUE) checkAnyValue(r, r.lengthEnd(end), depth)
    else if (tag === KV_KEY) r.skipString(r.lengthEnd(end))
    else r.skip(tag, end)
  }
}
