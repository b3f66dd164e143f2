import { type logCreator, logLevel } from 'kafkajs'
import type { Logger } from './logger.ts'

/**
 * kafkajs's own log lines (broker connections, rebalances, request errors) through the process's
 * logger, as structured JSON with `component: 'kafkajs'`, instead of kafkajs's console format.
 *
 * kafkajs logs at ERROR every request error it then retries (a topic that is being created, a
 * broker connection lost during a restart), so its ERROR lines go out at `warn`, with
 * `kafkajsLevel: 'ERROR'` kept: an `error` line in tracescore's log means tracescore itself gave
 * up on something (a consumer it could not recover, a delivery abandoned), which alerts may rely on.
 */
export function kafkajsLogCreator(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' })
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...fields } = log
      const context = { namespace, ...fields }
      if (level === logLevel.ERROR) child.warn({ ...context, kafkajsLevel: 'ERROR' }, message)
      else if (level === logLevel.WARN) child.warn(context, message)
      else if (level === logLevel.INFO) child.info(context, message)
      else if (level === logLevel.DEBUG) child.debug(context, message)
    }
}
