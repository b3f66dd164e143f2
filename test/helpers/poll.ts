/** Polls `condition` until it holds, or throws after `timeoutMs` with `describe()` in the message. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  describe: () => string,
  pollMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`)
    await new Promise((r) => setTimeout(r, pollMs))
  }
}
