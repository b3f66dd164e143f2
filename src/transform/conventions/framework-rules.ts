/**
 * Whether rules written for one framework (keyed to its instrumentation scope or its own span
 * names) apply. Off only while the generalisation measure runs (`withConventionReadersOnly`), so a
 * convention reader that carries such a rule (Logfire's OpenAI Agents integration) reads by
 * convention alone too.
 */
export const frameworkRules = { on: true }
