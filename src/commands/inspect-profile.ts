import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError } from '../config/index.ts'
import type { Span } from '../model/index.ts'
import { groupByTrace } from '../score-trace.ts'
import { readerFor } from '../transform/detect-convention.ts'
import { extractAgentRuns, spanRole } from '../transform/index.ts'
import {
  isProfileReader,
  type Profile,
  profileMatchKeys,
  profilesSchema,
  useProfiles,
  withSourceRecorder,
} from '../transform/profiles/index.ts'
import { suggestProfile } from '../transform/profiles/suggest-profile.ts'
import { readTrace } from '../transform/trace-gaps.ts'
import { formatReading } from './inspect.ts'
import { DEFAULT_MAX_FILE_MIB, readOtlpFiles } from './otlp-files.ts'

/** Reads profiles from `.json` files (a profile or a list) or modules (default export); exit 2 when bad. */
export async function loadProfileFiles(files: string[]): Promise<Profile[]> {
  const profiles: Profile[] = []
  for (const file of files) {
    let value: unknown
    try {
      value = file.endsWith('.json')
        ? JSON.parse(await readFile(file, 'utf8'))
        : ((await import(pathToFileURL(resolve(file)).href)) as { default?: unknown }).default
    } catch (error) {
      throw new ConfigError(`cannot read profile ${file}: ${(error as Error).message}`)
    }
    const parsed = profilesSchema.safeParse(Array.isArray(value) ? value : [value])
    if (!parsed.success) {
      const lines = parsed.error.issues.map(
        (issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      )
      throw new ConfigError(`invalid profile ${file}:\n${lines.join('\n')}`)
    }
    profiles.push(...parsed.data)
  }
  return profiles
}

/** A string that looks like model content: a message list or body, or long text. */
function looksLikeContent(value: unknown): boolean {
  if (typeof value !== 'string') return false
  return /^\s*[[{]/.test(value) ? /"(role|messages|content|choices)"/.test(value) : value.length >= 200
}

/** What the profiles left unread in one trace: content on spans no role took; attributes no field read. */
function unread(trace: Span[], used: Map<Span, Set<string>>, profileKeys: Set<string>): string[] {
  const lines: string[] = []
  const unusedKeys = new Set<string>()
  for (const span of trace) {
    const reader = readerFor(span)
    if (!reader || !isProfileReader(reader)) continue
    const role = spanRole(span)
    const keys = Object.keys(span.attributes)
    if (role === 'other') {
      const content = keys.filter((key) => looksLikeContent(span.attributes[key]))
      if (content.length > 0)
        lines.push(
          `    span ${span.spanId} ${JSON.stringify(span.name)}: no role, holds content in ${content.join(', ')}`,
        )
      continue
    }
    const read = used.get(span) ?? new Set()
    for (const key of keys) if (!read.has(key) && !profileKeys.has(key)) unusedKeys.add(key)
  }
  if (unusedKeys.size > 0) lines.push(`    attributes no field read: ${[...unusedKeys].sort().join(', ')}`)
  return lines
}

/**
 * `tracescore inspect FILE... --profile P`: the reading with the profiles, then for each trace
 * which source gave each field and what the profiles left unread.
 */
export async function inspectWithProfiles(files: string[], profiles: Profile[]): Promise<number> {
  useProfiles(profiles)
  const { spans, failed } = await readOtlpFiles(files, DEFAULT_MAX_FILE_MIB * 2 ** 20)
  const keys = new Set(profiles.flatMap(profileMatchKeys))
  for (const trace of groupByTrace(spans).values()) {
    const fields = new Map<string, number>()
    const used = new Map<Span, Set<string>>()
    const runs = withSourceRecorder(
      (span, field, label) => {
        fields.set(`${field} <- ${label}`, (fields.get(`${field} <- ${label}`) ?? 0) + 1)
        const set = used.get(span) ?? new Set()
        set.add(label.replace(/^(event \S+ )?(\(or above\) )?/, '').split(' ')[0]!)
        used.set(span, set)
      },
      () => extractAgentRuns(trace),
    )
    const lines = [formatReading(readTrace(trace, runs)), '  fields read by the profiles:']
    for (const [source, count] of [...fields].sort()) lines.push(`    ${source} (${count}x)`)
    if (fields.size === 0) lines.push('    none')
    const left = unread(trace, used, keys)
    lines.push('  left unread by the profiles:', ...(left.length ? left : ['    nothing']))
    console.log(lines.join('\n'))
  }
  return failed > 0 ? 1 : 0
}

/** `tracescore inspect --suggest FILE...`: a starting profile (JSON) for the files' spans. */
export async function suggestFromFiles(files: string[]): Promise<number> {
  const { spans, failed } = await readOtlpFiles(files, DEFAULT_MAX_FILE_MIB * 2 ** 20)
  const profile = suggestProfile(spans)
  if (!profile) {
    console.error('tracescore: no span holds what looks like a model prompt or answer; nothing to suggest')
    return failed > 0 ? 1 : 0
  }
  console.log(JSON.stringify(profile, null, 2))
  return failed > 0 ? 1 : 0
}
