/**
 * The reference server's allowed tag combinations: the list as stored (already
 * expanded), what one user may use, the `getAll=true` listing, and the text
 * grammar a POST is expanded by. Part of the store (`createTimelineStore`
 * spreads these methods into it), kept apart because it shares nothing with
 * timelines but the users.
 */
import { expandTagLines as expandAllowedTagLines } from '../../src/core/allowed-tag-lines.ts'

export interface AllowedTagsGroupInit {
  /** `[user]` or `{team}` identifiers; a bare name is taken as a user. */
  appliesTo: string[]
  combinations: string[]
}

export interface AllowedTagsState {
  everyone: string[]
  groups: AllowedTagsGroupInit[]
}

/** The store's allowed-tags methods over one list; `teamsOf` gives a user's teams (none for an unknown user). */
export function allowedTagsPart(teamsOf: (username: string) => readonly string[]) {
  let allowed: AllowedTagsState = { everyone: [], groups: [] }
  return {
    /** Replaces the whole list (already expanded; see `expandTagLines`). */
    setAllowedTags(next: AllowedTagsState): void {
      allowed = {
        everyone: [...next.everyone],
        groups: next.groups.map((g) => ({ appliesTo: g.appliesTo.map(normaliseAppliesTo), combinations: [...g.combinations] })),
      }
    },
    allowedTags(): AllowedTagsState {
      return { everyone: [...allowed.everyone], groups: allowed.groups.map((g) => ({ ...g })) }
    },
    /** Combinations available to one user: everyone's, then each group naming the user or one of their teams. */
    allowedTagsFor(username: string): string[] {
      const teams = new Set(teamsOf(username).map((t) => t.toLowerCase()))
      const out = [...allowed.everyone]
      for (const group of allowed.groups) {
        const applies = group.appliesTo.some((id) => {
          const inner = id.slice(1, -1).toLowerCase()
          return id.startsWith('[') ? inner === username.toLowerCase() : teams.has(inner)
        })
        if (applies) out.push(...group.combinations)
      }
      return [...new Set(out)]
    },
    /** The `getAll=true` listing: everyone's lines, then per group "", identifiers, combinations. */
    allowedTagsListing(): string[] {
      const out = [...allowed.everyone]
      for (const group of allowed.groups) out.push('', ...group.appliesTo, ...group.combinations)
      return out
    },
  }
}

/** `[user]` and `{team}` kept as written; a bare name is a user. */
export function normaliseAppliesTo(id: string): string {
  const trimmed = id.trim()
  if ((trimmed.startsWith('[') && trimmed.endsWith(']')) || (trimmed.startsWith('{') && trimmed.endsWith('}'))) {
    return trimmed
  }
  return `[${trimmed}]`
}

/**
 * Expands the allowed-tags text grammar as the server does on POST (the
 * grammar: src/core/allowed-tag-lines.ts, which the client's lost-update
 * check expands with too, so both read a list the same way). Returns the
 * combinations joined with `", "`, or the problem naming its line.
 */
export function expandTagLines(lines: string[]): { ok: true; combinations: string[] } | { ok: false; problem: string } {
  const expanded = expandAllowedTagLines(lines)
  return expanded.ok ? expanded : { ok: false, problem: `line ${expanded.index + 1} ${expanded.problem}` }
}
