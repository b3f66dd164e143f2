import { OtlpDecodeError } from '../decode-error.ts'

/** The {@link OtlpDecodeError} that `fn` throws; any other outcome fails the test. */
export function errorOf(fn: () => unknown): OtlpDecodeError {
  try {
    fn()
  } catch (error) {
    if (error instanceof OtlpDecodeError) return error
    throw error
  }
  throw new Error('expected OtlpDecodeError')
}
