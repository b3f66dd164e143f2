/** The four steps of a scorer pipeline. */
export type ScorerStepName = 'preprocess' | 'analyze' | 'generateScore' | 'generateReason'
