import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'

/** One OTLP protobuf export request of recorded agent traffic, and the trace ids it holds. */
export interface TrafficSample {
  name: string
  payload: Buffer
  traceIds: string[]
}

/**
 * Loads the OTLP protobuf traces recorded from real instrumentation libraries
 * (test/fixtures/data/<producer>/<scenario>.pb, made by scripts/fixtures/generate.ts).
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
 * A copy of a sample under fresh random trace ids, so each demo run produces new traces. The
 * ids are replaced byte for byte in the protobuf (16-byte fields keep their length, so the
 * message stays valid), which keeps the bytes exactly as the instrumentation serialized them.
 */
export function withFreshTraceIds(sample: TrafficSample): { payload: Buffer; traceIds: string[] } {
  const payload = Buffer.from(sample.payload)
  const traceIds: string[] = []
  for (const old of sample.traceIds) {
    const from = Buffer.from(old, 'hex')
    const to = randomBytes(16)
    traceIds.push(to.toString('hex'))
    for (let at = payload.indexOf(from); at !== -1; at = payload.indexOf(from, at + 16)) to.copy(payload, at)
  }
  return { payload, traceIds }
}
