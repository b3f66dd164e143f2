import { addRoleAttributeKeys } from '../../ingest/decode/role-attributes.ts'
import type { Span } from '../../model/index.ts'
import type { ConventionReader } from '../conventions/convention-reader.ts'
import { setProfileReaders } from '../detect-convention.ts'
import { type CompiledProfile, compileProfileParts } from './compile-profile.ts'
import { matcherKeys } from './matcher.ts'
import type { Profile } from './profile-schema.ts'

export { compileProfile, isProfileReader } from './compile-profile.ts'
export { withSourceRecorder } from './field-source.ts'
export { type Profile, profileSchema, profilesSchema } from './profile-schema.ts'

/** The attribute keys a profile matches spans by (its `owns` and `roles` matchers). */
export function profileMatchKeys(profile: Profile): string[] {
  const roles = profile.roles ?? {}
  return [profile.owns, roles.agent, roles.model, roles.tool, roles.step].flatMap(matcherKeys)
}

/**
 * Makes the transform read spans with these profiles first (in order), before the built-in
 * readers; `[]` takes them away. The keys the profiles match on join the role keys the ingest path
 * decodes at once, so the decision "does this trace hold an agent run" sees them too. Throws
 * (naming the profile) on a profile whose pattern or path the schema did not catch.
 */
export function useProfiles(profiles: readonly Profile[]): void {
  const compiled = profiles.map((profile, index) => {
    try {
      return compileProfileParts(profile)
    } catch (error) {
      throw new Error(`profile ${index} (${profile.name}): ${(error as Error).message}`)
    }
  })
  addRoleAttributeKeys(profiles.flatMap(profileMatchKeys))
  setProfileReaders(compiled.length > 0 ? ownerOf(compiled) : undefined)
}

/**
 * The reader of the first profile that owns a span. The span's name, scope and attributes are
 * read once for all the profiles' `owns` tests (the transform asks this of every span many times).
 */
function ownerOf(compiled: readonly CompiledProfile[]): (span: Span) => ConventionReader | undefined {
  return (span) => {
    const { name, attributes } = span
    const scope = span.scope?.name
    for (const { reader, owns } of compiled) {
      if (owns ? owns(name, scope, attributes) : reader.matches(span)) return reader
    }
    return undefined
  }
}
