/**
 * Tags as the server holds them (one ordered list, labels such as `:billable`
 * included) and as the sheet shows them (two columns).
 *
 * Decisions:
 * - Tags column: the hierarchy tags joined with `", "` (the server's own join),
 *   so a dropdown fed from the allowed combinations matches it exactly.
 * - Labels column: the labels joined with `", "` too, so both columns split
 *   the same way and a label may contain a space. A label typed without its
 *   colon (`billable`) gets one; a `:label` typed into Tags moves to labels.
 * - Writes send hierarchy tags first, then labels (the server's order). An
 *   activity whose tags are unchanged keeps its own order (see row-tags.ts), so a
 *   label the server holds between hierarchy tags is never "fixed" unasked.
 */
import type { AllowedTags } from './activity.ts'

/** At most this many tags (labels included) per activity. */
export const MAX_TAGS = 10
/** At most this many characters per tag. */
export const MAX_TAG_LENGTH = 200

/** Tags split into what the two columns show. */
export interface SplitTags {
  hierarchy: string[]
  labels: string[]
}

export type TagProblem = { kind: 'too-many-tags'; count: number } | { kind: 'tag-too-long'; tag: string; length: number }

/** Splits a server `name` (or a cell) on `,`, trims each tag and drops empty ones. */
export function splitTagName(name: string): string[] {
  // One array per name, not three: every row of a sheet splits two cells.
  const tags: string[] = []
  for (const part of name.split(',')) {
    const tag = part.trim()
    if (tag.length > 0) tags.push(tag)
  }
  return tags
}

/** The server's `name` for a list of tags. */
export function joinTagName(tags: readonly string[]): string {
  return tags.join(', ')
}

/** A label is a tag that starts with `:`. */
export function isLabel(tag: string): boolean {
  return tag.startsWith(':')
}

/** Separates hierarchy tags from labels, each in the order given. */
export function splitTags(tags: readonly string[]): SplitTags {
  return { hierarchy: tags.filter((t) => !isLabel(t)), labels: tags.filter(isLabel) }
}

/** The server's order for a write: hierarchy tags, then labels. */
export function combineTags(split: SplitTags): string[] {
  return [...split.hierarchy, ...split.labels]
}

/** Tags and Labels cell texts for an activity's tags. */
export function tagsToCells(tags: readonly string[]): { tags: string; labels: string } {
  const split = splitTags(tags)
  return { tags: joinTagName(split.hierarchy), labels: joinTagName(split.labels) }
}

/** Reads the Tags and Labels cells back into hierarchy and labels. */
export function cellsToTags(tagsCell: string, labelsCell: string): SplitTags {
  const fromTags = splitTags(splitTagName(tagsCell))
  const typedLabels = splitTagName(labelsCell).map((l) => (isLabel(l) ? l : `:${l}`))
  // A label typed into Tags that Labels already holds is the same label, not a second one.
  const seen = new Set<string>()
  const labels = [...typedLabels, ...fromTags.labels].filter((l) => {
    const folded = l.toLowerCase()
    if (seen.has(folded)) return false
    seen.add(folded)
    return true
  })
  return { hierarchy: fromTags.hierarchy, labels }
}

/** True when two tag lists hold the same hierarchy and the same labels, each in order (case-sensitive). */
export function sameTagsApartFromLabelPlacement(a: readonly string[], b: readonly string[]): boolean {
  return sameList(combineTags(splitTags(a)), combineTags(splitTags(b)))
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/** The server's limits: at most 10 tags, each at most 200 characters. */
export function validateTagLimits(tags: readonly string[]): TagProblem[] {
  const problems: TagProblem[] = []
  if (tags.length > MAX_TAGS) problems.push({ kind: 'too-many-tags', count: tags.length })
  for (const tag of tags) {
    if (tag.length > MAX_TAG_LENGTH) problems.push({ kind: 'tag-too-long', tag, length: tag.length })
  }
  return problems
}

/** One allowed combination, parsed. */
export interface AllowedCombination {
  tags: string[]
  /** Written with a trailing `,.`: users may not append tags to it. */
  noAppend: boolean
}

/** Parses an allowed combination line (`Client, Project` or `Client, Project,.`). */
export function parseCombination(line: string): AllowedCombination {
  const trimmed = line.trim()
  const noAppend = /,\s*\.$/.test(trimmed)
  const body = noAppend ? trimmed.replace(/,\s*\.$/, '') : trimmed
  return { tags: splitTagName(body), noAppend }
}

export interface AllowedTagsOptions {
  /**
   * The server's "User can append tags to allowed tags": a combination that
   * starts with an allowed one (and more tags after it) is allowed, unless
   * that one ends in `,.`. ManicTime checks it by default: "By default users can append additional tags to
   * allowed tags" (decisions/0022-team-boundaries.md).
   * @default true
   */
  userCanAppend?: boolean
}

export type AllowedTagsVerdict = { ok: true } | { ok: false; reason: string; applicable: number }

/**
 * Whether a user may use these tags. Labels are not checked (allowed lists
 * hold hierarchies). Applicable lines: the everyone list, and the groups whose
 * `Applies to` names the user (`[DOMAIN\user]`) or one of the user's teams
 * (`{Team}`). No applicable lines at all means nothing is restricted. Tags
 * compare case-insensitively, as on the server.
 */
export function checkAllowedTags(
  tags: readonly string[],
  user: string,
  allowed: AllowedTags,
  userTeams: readonly string[],
  options: AllowedTagsOptions = {},
): AllowedTagsVerdict {
  const forUser = foldedCombinations(user, allowed, userTeams)
  // Rows repeat a handful of combinations: each one is judged once per user and list.
  const userCanAppend = options.userCanAppend ?? true
  const verdicts = forUser.verdicts[userCanAppend ? 1 : 0]
  const verdictKey = tagListJson(tags)
  const known = verdicts.get(verdictKey)
  if (known) return known
  const verdict = judgeAllowedTags(tags, user, forUser.combos, userCanAppend)
  verdicts.set(verdictKey, verdict)
  return verdict
}

/**
 * `JSON.stringify(tags)`, made once per frozen list: the rows of one sheet read share a few hundred frozen lists
 * (`readRows`), and each row's fingerprint and allowed-tags verdict look its list up by this text.
 */
export function tagListJson(tags: readonly string[]): string {
  if (!Object.isFrozen(tags)) return JSON.stringify(tags)
  let json = listJsonCache.get(tags)
  if (json === undefined) {
    json = JSON.stringify(tags)
    listJsonCache.set(tags, json)
  }
  return json
}

const listJsonCache = new WeakMap<readonly string[], string>()

function judgeAllowedTags(
  tags: readonly string[],
  user: string,
  combos: readonly FoldedCombination[],
  userCanAppend: boolean,
): AllowedTagsVerdict {
  const hierarchy = splitTags(tags).hierarchy
  if (combos.length === 0 || hierarchy.length === 0) return { ok: true }
  const wanted = hierarchy.map(fold)
  for (const combo of combos) {
    const c = combo.folded
    if (c.length === wanted.length && c.every((t, i) => t === wanted[i])) return { ok: true }
    if (userCanAppend && !combo.noAppend && c.length < wanted.length && c.every((t, i) => t === wanted[i])) {
      return { ok: true }
    }
  }
  return {
    ok: false,
    applicable: combos.length,
    reason: `"${joinTagName(hierarchy)}" is not in the allowed tags for ${user}`,
  }
}

type FoldedCombination = AllowedCombination & { folded: string[] }

interface UserCombinations {
  combos: FoldedCombination[]
  /** Verdicts already given to this user, by tags as JSON; [0] without appending allowed, [1] with it. */
  verdicts: [Map<string, AllowedTagsVerdict>, Map<string, AllowedTagsVerdict>]
}

/**
 * `applicableCombinations` with each combination's tags folded, worked out once per user and list (lists
 * are not changed once read): an import checks every row of a sheet against the same few users' lists.
 */
function foldedCombinations(user: string, allowed: AllowedTags, userTeams: readonly string[]): UserCombinations {
  let cached = foldedCache.get(allowed)
  if (!cached) {
    cached = { withoutTeams: new Map(), withTeams: new Map() }
    foldedCache.set(allowed, cached)
  }
  // A user without teams (every user an import knows) by the name alone: no key text to build per row.
  const byUser = userTeams.length === 0 ? cached.withoutTeams : cached.withTeams
  const key = userTeams.length === 0 ? user : JSON.stringify([user, userTeams])
  let found = byUser.get(key)
  if (!found) {
    const combos = applicableCombinations(user, allowed, userTeams).map((c) => ({ ...c, folded: c.tags.map(fold) }))
    found = { combos, verdicts: [new Map(), new Map()] }
    byUser.set(key, found)
  }
  return found
}

const foldedCache = new WeakMap<AllowedTags, { withoutTeams: Map<string, UserCombinations>; withTeams: Map<string, UserCombinations> }>()

/** Allowed combinations that apply to a user, in list order. */
export function applicableCombinations(user: string, allowed: AllowedTags, userTeams: readonly string[]): AllowedCombination[] {
  const me = fold(user)
  const teams = new Set(userTeams.map(fold))
  const applies = (id: string): boolean => {
    const t = id.trim()
    // One entry may list several names: `[domain\user2, domain\user1]`.
    const names = t.slice(1, -1).split(',').map(fold)
    if (t.startsWith('[') && t.endsWith(']')) return names.includes(me)
    if (t.startsWith('{') && t.endsWith('}')) return names.some((n) => teams.has(n))
    return false
  }
  const lines = [...allowed.everyone]
  for (const group of allowed.groups) {
    if (group.appliesTo.some(applies)) lines.push(...group.combinations)
  }
  return lines.map(parseCombination).filter((c) => c.tags.length > 0)
}

function fold(text: string): string {
  return text.trim().toLocaleLowerCase('en-US')
}
