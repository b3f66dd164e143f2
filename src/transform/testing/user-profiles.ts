import { type Profile, profileSchema } from '../profiles/profile-schema.ts'

/**
 * Ten user profiles as a team might configure them (their own scopes, name patterns, attribute
 * matchers, JSON paths), none of which owns the spans of the repository's fixtures or of the
 * benchmark traffic: what loading profiles costs when they are tried on every span and match none.
 */
export function tenUserProfiles(): Profile[] {
  return Array.from({ length: 10 }, (_, i) =>
    profileSchema.parse({
      name: `team-${i}`,
      owns: {
        anyOf: [
          { scope: `team-${i}-agent` },
          { spanNamePattern: `^team${i}\\.(agent|model|tool) `, exists: [`team${i}.kind`] },
          { equals: { [`team${i}.kind`]: 'agent' } },
        ],
      },
      roles: {
        agent: { equals: { [`team${i}.kind`]: 'agent' } },
        model: { spanNamePattern: `^team${i}\\.model ` },
        tool: { exists: [`team${i}.tool`] },
      },
      fields: {
        agent: {
          name: `team${i}.agent`,
          input: { attribute: `team${i}.io`, path: '$.input', shape: 'prompt' },
        },
        model: { prompt: { attribute: `team${i}.io`, path: '$.request', shape: 'provider-request' } },
        tool: { name: `team${i}.tool`, arguments: { attribute: `team${i}.io`, path: '$.args' } },
      },
      status: { exceptionEvent: true },
    }),
  )
}

/** A profile that owns every span and calls each an agent run: the worst a user can configure. */
export function everySpanProfile(): Profile {
  return profileSchema.parse({ name: 'everything', owns: {}, roles: { agent: {} } })
}
