import { describe, expect, it } from 'vitest'
import { createKeyedLock } from './keyed-lock.ts'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('createKeyedLock', () => {
  it('runs tasks sharing a key one after another, in call order, and others at once', async () => {
    const lock = createKeyedLock()
    const log: string[] = []
    const task = (name: string) => async () => {
      log.push(`${name} start`)
      await tick()
      log.push(`${name} end`)
      return name
    }
    const results = await Promise.all([
      lock.run(['t1', 't2'], task('a')),
      lock.run(['t2'], task('b')),
      lock.run(['t3'], task('c')),
      lock.run(['t1', 't1'], task('d')),
    ])
    expect(results).toEqual(['a', 'b', 'c', 'd'])
    expect(log.slice(0, 2)).toEqual(['a start', 'c start'])
    expect(log.indexOf('b start')).toBeGreaterThan(log.indexOf('a end'))
    expect(log.indexOf('d start')).toBeGreaterThan(log.indexOf('a end'))
  })

  it('releases the key when a task fails', async () => {
    const lock = createKeyedLock()
    await expect(lock.run(['t1'], async () => Promise.reject(new Error('down')))).rejects.toThrow('down')
    await expect(lock.run(['t1'], async () => 'next')).resolves.toBe('next')
  })
})
