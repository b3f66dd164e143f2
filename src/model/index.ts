export * from './agent-run.ts'
export * from './message.ts'
export * from './score.ts'
export * from './span.ts'
