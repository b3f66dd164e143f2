import { inspect } from 'node:util'
import type { Attributes } from '../../model/span.ts'
import { readKeyValues } from './proto-values.ts'
import { ProtobufReader } from './protobuf-reader.ts'
import { isRoleKey } from './role-attributes.ts'

/**
 * Bytes owned by lazy attribute views: a latin1 string (one char per byte, on the V8 heap, cheaper
 * to make and to collect than a typed array), or a byte copy beyond what one string can hold.
 */
export type KeptBytes = string | Uint8Array

/** From this size on, bytes are kept as a byte copy: V8 strings hold at most 2^29 - 24 chars. */
const MAX_STRING_BYTES = 2 ** 28

/** An owned copy of bytes `start..end` of `r`'s payload. */
export function ownedBytes(r: ProtobufReader, start: number, end: number): KeptBytes {
  return end - start < MAX_STRING_BYTES ? r.latin1(start, end) : r.buf.slice(start, end)
}

/**
 * Attributes of a span (or event, or link) kept encoded until first read: the `KeyValue` fields
 * with tag `field` among the protobuf fields in `src[start..end)`. This object is the
 * target of the `Proxy` that stands for the attributes (see {@link VIEW}); its own fields are state,
 * never shown. The role keys were decoded already (`roles`) and are answered without decoding the
 * rest; any other use decodes everything into `decoded`, which then replaces the proxy on its owner,
 * so later reads are plain reads.
 */
export class LazyAttributes {
  /** Undefined once decoded. */
  src: KeptBytes | undefined
  start: number
  end: number
  field: number
  roles: Attributes | undefined
  /** Bytes of the encoded `KeyValue` fields, for size estimates. */
  encodedBytes: number
  /** The span, event or link whose `attributes` the proxy is. */
  owner: { attributes: Attributes } | undefined
  decoded: Attributes | undefined

  constructor(
    src: KeptBytes,
    start: number,
    end: number,
    field: number,
    roles: Attributes | undefined,
    encodedBytes: number,
  ) {
    this.src = src
    this.start = start
    this.end = end
    this.field = field
    this.roles = roles
    this.encodedBytes = encodedBytes
    this.owner = undefined
    this.decoded = undefined
  }

  /** The attributes, decoded (in wire order) on the first call. */
  attributes(): Attributes {
    if (this.decoded !== undefined) return this.decoded
    const src = this.src!
    const bytes =
      typeof src !== 'string'
        ? src.subarray(this.start, this.end)
        : Buffer.from(
            this.start === 0 && this.end === src.length ? src : src.substring(this.start, this.end),
            'latin1',
          )
    const decoded: Attributes = {}
    readKeyValues(new ProtobufReader(bytes), bytes.length, this.field, decoded)
    this.decoded = decoded
    this.src = undefined
    this.roles = undefined
    // Reflect.set: a frozen owner keeps the (now decoded) view instead of throwing.
    if (this.owner !== undefined) Reflect.set(this.owner, 'attributes', decoded)
    return decoded
  }

  /**
   * `util.inspect` (console.log) looks at a proxy's target directly, which would print this state:
   * it calls this hook instead, with the proxy as `this`, whose spread decodes it.
   */
  [inspect.custom](this: Attributes, _depth: number, options: object): string {
    return inspect({ ...this }, options)
  }
}

/** Key under which a view answers with its state (nothing else can read it). */
const STATE = Symbol('tracescore.lazyAttributes')

/**
 * The traps of every view: role keys (read, `in`, `Object.hasOwn`) from `roles` while undecoded, anything else from the decoded
 * object. The target's own fields are state and never reported; the proxy invariants allow that
 * as long as the target stays extensible with only configurable fields, so a view refuses to be
 * made non-extensible and to take non-configurable properties (the decoded object, which replaces
 * the view on its span, accepts both).
 */
const VIEW: ProxyHandler<LazyAttributes> = {
  get(state, key) {
    if (key === STATE) return state
    if (state.decoded === undefined && typeof key === 'string' && isRoleKey(key)) return state.roles?.[key]
    return state.attributes()[key as string]
  },
  has(state, key) {
    if (state.decoded === undefined && typeof key === 'string' && isRoleKey(key)) {
      return state.roles !== undefined && Object.hasOwn(state.roles, key)
    }
    return Reflect.has(state.attributes(), key)
  },
  ownKeys: (state) => Reflect.ownKeys(state.attributes()),
  getOwnPropertyDescriptor(state, key) {
    // `Object.hasOwn` (how transform reads attributes) asks for the descriptor.
    if (state.decoded === undefined && typeof key === 'string' && isRoleKey(key)) {
      if (state.roles === undefined || !Object.hasOwn(state.roles, key)) return undefined
      return { value: state.roles[key], writable: true, enumerable: true, configurable: true }
    }
    return Reflect.getOwnPropertyDescriptor(state.attributes(), key)
  },
  defineProperty(state, key, descriptor) {
    const decoded = state.attributes()
    const configurable =
      descriptor.configurable ?? Reflect.getOwnPropertyDescriptor(decoded, key)?.configurable
    return configurable === true && Reflect.defineProperty(decoded, key, descriptor)
  },
  deleteProperty: (state, key) => Reflect.deleteProperty(state.attributes(), key),
  set: (state, key, value) => Reflect.set(state.attributes(), key, value),
  getPrototypeOf: (state) => Reflect.getPrototypeOf(state.attributes()),
  setPrototypeOf: (state, prototype) => Reflect.setPrototypeOf(state.attributes(), prototype),
  preventExtensions: () => false,
}

/** Gives `holder` the view over `state` as its attributes, to be replaced there once decoded. */
export function attachLazyAttributes(holder: { attributes: Attributes }, state: LazyAttributes): void {
  state.owner = holder
  holder.attributes = new Proxy(state, VIEW) as unknown as Attributes
}

function stateOf(attributes: Attributes): LazyAttributes | undefined {
  return (attributes as { [STATE]?: LazyAttributes })[STATE]
}

/**
 * The encoded size of attributes not decoded yet (the bytes they are kept as), or undefined when
 * `attributes` is a plain object (or a view already decoded): for size estimates that must not
 * decode what they measure.
 */
export function undecodedAttributesBytes(attributes: Attributes): number | undefined {
  const state = stateOf(attributes)
  return state?.decoded === undefined ? state?.encodedBytes : undefined
}

/**
 * `attributes` as a plain object: a view is decoded first (and replaced by the decoded object on its
 * span). For code that enumerates attributes (`for…in`, `Object.keys`): a view answers that through
 * its traps, with a property descriptor made for each key every time it is enumerated, also after
 * it was decoded when the caller kept the view.
 */
export function plainAttributes(attributes: Attributes): Attributes {
  return stateOf(attributes)?.attributes() ?? attributes
}
