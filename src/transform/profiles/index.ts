import { addRoleAttributeKeys } from '../../ingest/decode/role-attributes.ts'
import { type ProfileCandidacy, setProfileCandidacy } from '../../ingest/decode/scan-proto.ts'
import type { Attributes, Span } from '../../model/index.ts'
import type { ConventionReader } from '../conventions/convention-reader.ts'
import { setProfileReaders } from '../detect-convention.ts'
import { type CompiledProfile, compileProfileParts } from './compile-profile.ts'
import { byNameAndScope, compileBranches, matcherKeys } from './matcher.ts'
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
  setProfileCandidacy(profiles.length > 0 ? candidacyOf(profiles) : undefined)
  setProfileReaders(compiled.length > 0 ? ownerOf(compiled) : undefined)
}

/**
 * What the ingest path must treat as possible run spans for these profiles, beyond their match
 * keys (which joined the role keys): every span of a scope a branch names; spans whose name a
 * scope-less branch's name conditions take; every span when a branch asks nothing. A profile
 * that extends a built-in reader without `owns` owns what that reader owns, which the ingest path
 * already sees. Conservative: a span passed on here is only looked at more closely.
 */
function candidacyOf(profiles: readonly Profile[]): ProfileCandidacy {
  const scopes = new Set<string>()
  const names: ((name: string) => boolean)[] = []
  let every = false
  for (const { owns } of profiles) {
    for (const branch of owns ? ('anyOf' in owns ? owns.anyOf : [owns]) : []) {
      if (branch.scope !== undefined) scopes.add(branch.scope)
      else if (branch.spanName !== undefined || branch.spanNamePattern !== undefined) {
        const byName = compileBranches({
          spanName: branch.spanName,
          spanNamePattern: branch.spanNamePattern,
        })[0]!.byName!
        names.push((name) => byName(name, undefined))
      } else if (branch.equals === undefined && branch.exists === undefined) every = true
    }
  }
  const name = names.length === 0 ? undefined : (text: string) => names.some((test) => test(text))
  return name ? { scopes, name, every } : { scopes, every }
}

/** A branch of some profile's `owns` still open for spans of one name and scope. */
interface Candidate {
  reader: ConventionReader
  /** Undefined: the branch holds for every span of that name and scope. */
  byAttributes?: (attributes: Attributes) => boolean
  /** A profile without `owns` (it extends a built-in reader): the reader decides. */
  whole?: boolean
}

/**
 * The reader of the first profile that owns a span. What the profiles ask of a span's name and
 * scope is worked out once per name-and-scope pair (spans of one producer share a few: most
 * profiles are then rejected without a test); only the attribute conditions of the branches left
 * are asked of each span (the transform asks this of every span).
 */
function ownerOf(compiled: readonly CompiledProfile[]): (span: Span) => ConventionReader | undefined {
  const profiles = compiled.map(({ reader, owns }) => ({ reader, branches: owns }))
  const candidatesOf = byNameAndScope((name, scope): Candidate[] => {
    const candidates: Candidate[] = []
    for (const { reader, branches } of profiles) {
      if (!branches) candidates.push({ reader, whole: true })
      else
        for (const { byName, byAttributes } of branches) {
          if (byName && !byName(name, scope)) continue
          candidates.push(byAttributes ? { reader, byAttributes } : { reader })
          if (!byAttributes) break // the profile owns every span of this name and scope
        }
    }
    return candidates
  })
  return (span) => {
    const candidates = candidatesOf(span)
    if (candidates.length === 0) return undefined
    const attributes = span.attributes
    for (const { reader, byAttributes, whole } of candidates) {
      if (whole ? reader.matches(span) : !byAttributes || byAttributes(attributes)) return reader
    }
    return undefined
  }
}
