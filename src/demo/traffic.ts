import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { spanFieldOffsets } from './span-field-offsets.ts'

/** One OTLP protobuf export request of recorded agent traffic, and the trace ids it holds. */
export interface TrafficSample {
  name: string
  payload: Buffer
  traceIds: string[]
}

/**
 * Loads the OTLP protobuf traces recorded from real instrumentation libraries from
 * `<dataDir>/<producer>/<scenario>.pb`: test/fixtures/data (made by scripts/fixtures/generate.ts),
 * or the demo's selection of it in dist/demo-data (copied by scripts/demo-data.ts at build time).
 */
export function loadTrafficSamples(dataDir: string): TrafficSample[] {
  const samples: TrafficSample[] = []
  for (const producer of readdirSync(dataDir, { withFileTypes: true })) {
    if (!producer.isDirectory()) continue
    for (const file of readdirSync(join(dataDir, producer.name)).sort()) {
      if (!file.endsWith('.pb')) continue
      const payload = readFileSync(join(dataDir, producer.name, file))
      const traceIds = [...new Set(decodeOtlpTraces(payload, 'otlp_proto').map((s) => s.traceId))]
      samples.push({ name: `${producer.name}/${file.slice(0, -3)}`, payload, traceIds })
    }
  }
  return samples
}

/**
 * A copy of a sample under fresh random trace and span ids, so each replay produces new traces:
 * backends key spans by span id (Phoenix keeps the first span it saw with an id, so a replay that
 * reused span ids would lose its agent spans, and annotations would land on an older trace). Ids
 * are replaced in place, consistently for span, parent and link ids (fixed-size fields keep their
 * length, so the message stays valid and every other byte is as the instrumentation wrote it).
 */
export function withFreshIds(sample: TrafficSample): { payload: Buffer; traceIds: string[] } {
  const payload = Buffer.from(sample.payload)
  const fresh = new Map<string, Buffer>()
  const renew = (at: number | undefined, length: 8 | 16) => {
    if (at === undefined || at < 0) return
    const old = payload.toString('hex', at, at + length)
    const id = fresh.get(old) ?? randomBytes(length)
    fresh.set(old, id)
    id.copy(payload, at)
  }
  for (const span of spanFieldOffsets(payload)) {
    renew(span.traceId, 16)
    renew(span.spanId, 8)
    renew(span.parentSpanId, 8)
    for (const link of span.links) {
      renew(link.traceId, 16)
      renew(link.spanId, 8)
    }
  }
  return { payload, traceIds: sample.traceIds.map((id) => fresh.get(id)!.toString('hex')) }
}
