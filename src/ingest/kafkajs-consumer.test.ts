/**
 * `stop` ends a kafkajs consumer for good, also when it comes during a group join or a kafkajs
 * restart (as after a broker restart, when the coordinator loads for seconds). A stand-in for the
 * kafkajs consumer behaves as kafkajs 2.2.4 does there: `run` resolves only when the join ended,
 * and a `disconnect` during the join does not stop it (the broker-restart-logs fault test showed
 * the real one: the process never exited after SIGTERM).
 */
import type { ConsumerConfig } from 'kafkajs'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { ConsumerHandlers } from './consumer-port.ts'
import { createKafkajsConsumer } from './kafkajs-consumer.ts'

const EVENTS = {
  CONNECT: 'connect',
  GROUP_JOIN: 'group_join',
  CRASH: 'crash',
  FETCH: 'fetch',
  FETCH_START: 'fetch_start',
  REBALANCING: 'rebalancing',
}

/** A kafkajs stand-in: what happened, in order, and the joins under way to end by hand. */
function standIn() {
  const log: string[] = []
  const listeners = new Map<string, ((event: { payload: unknown }) => void)[]>()
  const emit = (name: string, payload: unknown = {}) => {
    log.push(name)
    for (const listener of listeners.get(name) ?? []) listener({ payload })
  }
  let endJoin = () => {}
  let config: ConsumerConfig | undefined
  /** A join begins (kafkajs emits CONNECT first); it ends when `joined()` is called. */
  const join = () => {
    emit(EVENTS.CONNECT)
    return new Promise<void>((resolve) => {
      endJoin = () => {
        emit(EVENTS.GROUP_JOIN, { memberAssignment: { raw: [0] } })
        resolve()
      }
    })
  }
  const kafka = {
    consumer(given: ConsumerConfig) {
      config = given
      return {
        events: EVENTS,
        on(name: string, listener: (event: { payload: unknown }) => void) {
          listeners.set(name, [...(listeners.get(name) ?? []), listener])
        },
        connect: async () => {},
        subscribe: async () => {},
        run: join,
        disconnect: async () => {
          log.push('disconnect')
        },
        commitOffsets: async () => {},
        pause() {},
        resume() {},
        seek() {},
      }
    },
  }
  return { kafka, log, emit, join, joined: () => endJoin(), config: () => config! }
}

const handlers: ConsumerHandlers = { onBatch: async () => undefined, onAssigned() {}, onCrash() {} }

const consumerOver = (kafka: unknown) =>
  createKafkajsConsumer({
    kafka: kafka as never,
    groupId: 'g',
    fromBeginning: true,
    logger: pino({ level: 'silent' }),
  })

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/** A consumer over a stand-in, started and joined. */
async function joinedConsumer() {
  const fake = standIn()
  const consumer = consumerOver(fake.kafka)
  const started = consumer.start('raw', handlers)
  await settle()
  fake.joined()
  await started
  return { fake, consumer }
}

describe('stopping a kafkajs consumer', () => {
  it('waits for the group join under way to end, then disconnects', async () => {
    const fake = standIn()
    const consumer = consumerOver(fake.kafka)
    const started = consumer.start('raw', handlers)
    await settle()
    const stopped = consumer.stop()
    await settle()
    // A disconnect now would leave the join to finish on its own, a consumer nothing can stop.
    expect(fake.log).toEqual([EVENTS.CONNECT])
    fake.joined()
    await Promise.all([started, stopped])
    expect(fake.log).toEqual([EVENTS.CONNECT, EVENTS.GROUP_JOIN, 'disconnect'])
  })

  it("waits for a kafkajs restart's join too, and refuses later restarts", async () => {
    const { fake, consumer } = await joinedConsumer()
    const { restartOnFailure, retries } = fake.config().retry as {
      restartOnFailure: (error: Error) => Promise<boolean>
      retries: number
    }
    expect(retries).toBe(5) // kafkajs's own default kept
    expect(await restartOnFailure(new Error('coordinator loading'))).toBe(true)
    // kafkajs crashed and restarts the consumer by itself: a new join is under way.
    fake.emit(EVENTS.CRASH, { error: new Error('coordinator loading'), restart: true })
    void fake.join()
    const stopped = consumer.stop()
    await settle()
    expect(fake.log.at(-1)).toBe(EVENTS.CONNECT)
    expect(await restartOnFailure(new Error('connection closed'))).toBe(false)
    fake.joined()
    await stopped
    expect(fake.log.slice(-2)).toEqual([EVENTS.GROUP_JOIN, 'disconnect'])
  })

  it('disconnects again after a crash whose restart kafkajs decided just before stop', async () => {
    const { fake, consumer } = await joinedConsumer()
    await consumer.stop()
    // kafkajs asked restartOnFailure before the stop, emits the crash after it, then arms its
    // restart timer: a disconnect must come after that, when it clears the timer.
    fake.emit(EVENTS.CRASH, { error: new Error('connection closed'), restart: true })
    expect(fake.log.at(-1)).toBe(EVENTS.CRASH)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(fake.log.slice(-2)).toEqual([EVENTS.CRASH, 'disconnect'])
  })

  it('disconnects at once when no join is under way', async () => {
    const { fake, consumer } = await joinedConsumer()
    await consumer.stop()
    expect(fake.log).toEqual([EVENTS.CONNECT, EVENTS.GROUP_JOIN, 'disconnect'])
  })
})
