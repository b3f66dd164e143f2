import type { Producer } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { resolveConfig, type TracescoreConfigInput } from '../config/index.ts'
import { sinksFromConfig } from './sinks-from-config.ts'

const producer = {} as Producer
const names = (sinks: TracescoreConfigInput['sinks']) =>
  sinksFromConfig(resolveConfig({ sinks }, {}).sinks, producer).map((sink) => sink.name)

describe('sinksFromConfig: evaluation log records', () => {
  it('sends scores as log records beside the score spans by default', () => {
    expect(names({})).toEqual(['otlp', 'otlp-logs'])
  })

  it('sends none with sinks.otlp.logs: false, nor without the OTLP sink', () => {
    expect(names({ otlp: { logs: false } })).toEqual(['otlp'])
    expect(names({ otlp: false })).toEqual([])
  })
})
