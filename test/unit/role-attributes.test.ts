/**
 * The assembler asks transform's `isAgentRunSpan` of every span; lazily decoded spans answer the
 * attribute keys in `ROLE_ATTRIBUTE_KEYS` without decoding the rest. These tests fail when
 * transform's role functions read another key (add it to the list) or enumerate attributes, so
 * whoever adds a convention learns that non-agent spans would be decoded in full.
 */
import { describe, expect, it } from 'vitest'
import { decodeOtlpJson } from '../../src/ingest/decode/decode-json.ts'
import { decodeOtlpProto } from '../../src/ingest/decode/decode-proto.ts'
import { undecodedAttributesBytes } from '../../src/ingest/decode/lazy-attributes.ts'
import { ROLE_ATTRIBUTE_KEYS } from '../../src/ingest/decode/role-attributes.ts'
import type { Attributes, Span } from '../../src/model/span.ts'
import { detectConvention, isAgentRunSpan, spanRole } from '../../src/transform/index.ts'
import { listFixtures, loadFixture } from '../fixtures/index.ts'

const fixtures = listFixtures().map((entry) => loadFixture(entry))

/** What the role functions did with attributes: keys read (`get`, `in`, `Object.hasOwn`), and whether they listed them. */
interface Reads {
  keys: Set<string>
  enumerated: boolean
}

/** `attributes` behind a proxy that records every key read and every enumeration into `reads`. */
function recording(attributes: Attributes, reads: Reads): Attributes {
  return new Proxy(attributes, {
    get(target, key) {
      if (typeof key === 'string') reads.keys.add(key)
      return Reflect.get(target, key)
    },
    has(target, key) {
      if (typeof key === 'string') reads.keys.add(key)
      return Reflect.has(target, key)
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key === 'string') reads.keys.add(key)
      return Reflect.getOwnPropertyDescriptor(target, key)
    },
    ownKeys(target) {
      reads.enumerated = true
      return Reflect.ownKeys(target)
    },
  })
}

/**
 * The role questions asked of every span before transform takes a trace (the assembler's
 * `isAgentRunSpan`, and what it builds on); finding the runs of a trace comes later, when its
 * spans are read in full anyway.
 */
function askRoles(spans: Span[]): void {
  for (const span of spans) {
    isAgentRunSpan(span)
    spanRole(span)
    detectConvention(span)
  }
}

describe('role attributes decoded eagerly', () => {
  it('has fixtures of every convention to check against', () => {
    expect(fixtures.length).toBeGreaterThan(20)
    const conventions = new Set(fixtures.flatMap((f) => decodeOtlpJson(f.json).map(detectConvention)))
    expect([...conventions].filter(Boolean).sort()).toEqual(
      expect.arrayContaining(['ai-sdk', 'genai', 'mastra', 'openinference']),
    )
  })

  it("transform's role functions read only ROLE_ATTRIBUTE_KEYS, and never list attributes", () => {
    const span: Reads = { keys: new Set(), enumerated: false }
    const nested: Reads = { keys: new Set(), enumerated: false }
    for (const fixture of fixtures) {
      const spans = decodeOtlpJson(fixture.json).map((s) => ({
        ...s,
        attributes: recording(s.attributes, span),
        events: s.events.map((e) => ({ ...e, attributes: recording(e.attributes, nested) })),
        links: s.links.map((l) => ({ ...l, attributes: recording(l.attributes, nested) })),
      }))
      askRoles(spans)
    }
    expect([...span.keys].filter((key) => !ROLE_ATTRIBUTE_KEYS.includes(key))).toEqual([])
    expect(span.enumerated).toBe(false)
    // Event names are part of every span's envelope; event and link attributes are not.
    expect([...nested.keys]).toEqual([])
    expect(nested.enumerated).toBe(false)
  })

  it('asking the roles of protobuf-decoded fixtures leaves every lazily decoded span undecoded', () => {
    let lazy = 0
    for (const fixture of fixtures) {
      const spans = decodeOtlpProto(fixture.proto)
      const undecoded = spans.filter((s) => undecodedAttributesBytes(s.attributes) !== undefined)
      lazy += undecoded.length
      askRoles(spans)
      for (const s of undecoded) expect(undecodedAttributesBytes(s.attributes), s.name).toBeDefined()
      // And the answers are those of the fully decoded (JSON) spans.
      const fromJson = new Map(decodeOtlpJson(fixture.json).map((s) => [s.spanId, s]))
      for (const s of spans) expect(spanRole(s), s.name).toBe(spanRole(fromJson.get(s.spanId)!))
    }
    expect(lazy).toBeGreaterThan(100)
  })
})
