/**
 * Allowed tag combinations in their three forms: the server's flat listing
 * (`GET tagcombinationlist?getAll=true`), the POST body, and a plain text form
 * a manager can edit. All are pure and round-trip through `AllowedTags`.
 */
import { TimelineSheetsError } from '../errors.ts'
import type { AllowedTags } from './model.ts'

/** Body of `POST tagcombinationlist`; replaces the whole list on the server. */
export interface TagCombinationListBody {
  tagCombinations: string[]
  userTagCombinationLists: { users: string[]; tagCombinations: string[] }[]
}

/** `[DOMAIN\user]` or `{Team}`. */
export function isAppliesToEntry(entry: string): boolean {
  return /^\[.*\]$/s.test(entry) || /^\{.*\}$/s.test(entry)
}

/**
 * Parses the flat listing: combinations for everyone first; then per group an
 * empty entry, its `[user]` / `{team}` entries, and its combinations.
 */
export function parseFlatListing(listing: readonly string[]): AllowedTags {
  const allowed: AllowedTags = { everyone: [], groups: [] }
  let group: AllowedTags['groups'][number] | undefined
  for (const entry of listing) {
    if (entry === '') {
      group = { appliesTo: [], combinations: [] }
      allowed.groups.push(group)
    } else if (!group) {
      allowed.everyone.push(entry)
    } else if (group.combinations.length === 0 && isAppliesToEntry(entry)) {
      group.appliesTo.push(entry)
    } else {
      group.combinations.push(entry)
    }
  }
  return allowed
}

/** The flat listing the server would return for `allowed` (inverse of `parseFlatListing`). */
export function toFlatListing(allowed: AllowedTags): string[] {
  assertSerialisable(allowed)
  const listing = [...allowed.everyone]
  for (const group of allowed.groups) listing.push('', ...group.appliesTo, ...group.combinations)
  return listing
}

/** The POST body that sets the server's list to `allowed`. */
export function toTagCombinationListBody(allowed: AllowedTags): TagCombinationListBody {
  assertSerialisable(allowed)
  return {
    tagCombinations: [...allowed.everyone],
    userTagCombinationLists: allowed.groups.map((group) => ({
      users: [...group.appliesTo],
      tagCombinations: [...group.combinations],
    })),
  }
}

/**
 * Refuses values the flat listing could not carry unambiguously: an empty
 * combination (it would start a group), a combination that looks like a user
 * or team entry, an identifier that is neither.
 */
export function assertSerialisable(allowed: AllowedTags): void {
  const where = (group: number | undefined) => (group === undefined ? 'for everyone' : `in group ${group + 1}`)
  const checkCombinations = (combinations: readonly string[], group: number | undefined) => {
    for (const combination of combinations) {
      if (combination.trim() === '') {
        throw invalid(`An empty tag combination ${where(group)} cannot be stored.`)
      }
      if (isAppliesToEntry(combination)) {
        throw invalid(`The tag combination ${JSON.stringify(combination)} ${where(group)} looks like a user or team entry.`)
      }
    }
  }
  checkCombinations(allowed.everyone, undefined)
  allowed.groups.forEach((group, index) => {
    for (const entry of group.appliesTo) {
      if (!isAppliesToEntry(entry)) {
        throw invalid(`${JSON.stringify(entry)} ${where(index)} is not a user or team: write users as [DOMAIN\\user] and teams as {Team}.`)
      }
    }
    checkCombinations(group.combinations, index)
  })
}

/**
 * Parses the text form: one combination per line; a `[DOMAIN\user]` or
 * `{Team}` line starts a group (consecutive ones form one group, and
 * `[a, b]` / `{x, y}` list several); blank lines and `#` comments are ignored.
 */
export function parseAllowedTagsText(text: string): AllowedTags {
  const allowed: AllowedTags = { everyone: [], groups: [] }
  let group: AllowedTags['groups'][number] | undefined
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    if (isAppliesToEntry(line)) {
      if (!group || group.combinations.length > 0) {
        group = { appliesTo: [], combinations: [] }
        allowed.groups.push(group)
      }
      group.appliesTo.push(...splitAppliesTo(line))
    } else if (group) {
      group.combinations.push(line)
    } else {
      allowed.everyone.push(line)
    }
  }
  return allowed
}

/** The text form of `allowed` (inverse of `parseAllowedTagsText` for trimmed, non-comment combinations). */
export function formatAllowedTagsText(allowed: AllowedTags): string {
  assertSerialisable(allowed)
  const blocks: string[] = []
  if (allowed.everyone.length > 0) blocks.push(allowed.everyone.join('\n'))
  for (const group of allowed.groups) blocks.push([...group.appliesTo, ...group.combinations].join('\n'))
  return blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`
}

function splitAppliesTo(line: string): string[] {
  const open = line.charAt(0)
  const close = line.charAt(line.length - 1)
  return line
    .slice(1, -1)
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => `${open}${part}${close}`)
}

function invalid(message: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_VALIDATION', message, {
    hint: 'Fix the allowed tags list and run again.',
  })
}
