/** The `engines.node` range of the package, e.g. `^22.18.0 || >=23.6.0`. */
export function requiredRange(): string
/** Whether `version` (`20.20.2`) satisfies `range`, made of `^x.y.z` and `>=x.y.z` alternatives. */
export function satisfies(version: string, range: string): boolean
/** The message for a Node.js too old for tracescore, or undefined when this one will do. */
export function nodeVersionProblem(version?: string, execPath?: string): string | undefined
