import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { localBrokerPort, stopCommand } from './local-broker.ts'

describe('localBrokerPort', () => {
  it('is the port of one address on this machine, which the launcher can start', () => {
    expect(localBrokerPort(['127.0.0.1:9092'])).toBe(9092)
    expect(localBrokerPort(['localhost:19692'])).toBe(19692)
  })

  it('is undefined for a remote broker or a cluster, which are not the demo to start', () => {
    expect(localBrokerPort(['kafka.internal:9092'])).toBeUndefined()
    expect(localBrokerPort(['127.0.0.1:9092', '127.0.0.1:9093'])).toBeUndefined()
  })
})

describe('stopCommand', () => {
  it('names the port and the stop script of this package, runnable from any folder', () => {
    const script = /^KAFKA_PORT=19692 bash '?(.+?)'?$/.exec(stopCommand(19692))?.[1]
    expect(script).toMatch(/\/scripts\/kafka-stop\.sh$/)
    expect(existsSync(script!)).toBe(true)
  })
})
