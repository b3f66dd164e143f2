import type { ConventionReader } from '../../conventions/convention-reader.ts'
import { compileProfile } from '../compile-profile.ts'
import { profileSchema } from '../profile-schema.ts'
import langChain4j from './langchain4j.json' with { type: 'json' }
import springAi from './spring-ai.json' with { type: 'json' }

/*
 * Built-in readers that are only a mapping, kept as profile data (one file per producer) and read
 * by the same engine as a user's profiles. What data cannot express stays code in `conventions/`.
 */

/** Spring AI's Micrometer observations (`spring.ai.kind`), as the profile in `spring-ai.json`. */
export const springAiReader: ConventionReader = compileProfile(profileSchema.parse(springAi))

/**
 * Quarkus LangChain4j (`langchain4j.aiservices.<Interface>.<method>` runs named after the
 * interface, `completion <model>` model spans whose answer is `gen_ai.completion` text, failures
 * only as `exception` events), as the profile in `langchain4j.json`.
 */
export const langChain4jReader: ConventionReader = compileProfile(profileSchema.parse(langChain4j))
