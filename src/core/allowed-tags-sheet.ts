/**
 * The Allowed tags tab: one row per combination, `Applies to` saying whom it
 * is for — `everyone`, users as `[DOMAIN\user]`, teams as `{Team}`, several
 * separated by commas. Reading it back groups rows by `Applies to` in first-
 * seen order, so an export followed by an import changes nothing.
 */
import type { CellValue } from './sheet.ts'
import type { AllowedTags } from './activity.ts'
import { expandTagLines } from './allowed-tag-lines.ts'
import { cellText, isEmptyCell } from './cells.ts'
import { fnv1a64Base64url } from './fingerprint.ts'

export const EVERYONE = 'everyone'

export function allowedTagsToRows(allowed: AllowedTags): CellValue[][] {
  return [
    ...allowed.everyone.map((combination) => [EVERYONE, combination]),
    ...allowed.groups.flatMap((group) => group.combinations.map((combination) => [group.appliesTo.join(', '), combination])),
  ]
}

export interface AllowedTagsRowProblem {
  rowNumber: number
  message: string
}

export type AllowedTagsRead = { ok: true; allowed: AllowedTags } | { ok: false; problems: AllowedTagsRowProblem[] }

/**
 * Rows 2… of the tab (`rows[i]` is sheet row `i + 2`), columns Applies to and Tags at the given indexes. The Tags
 * cells keep the allowed-tags grammar as written (prefix lines, `,.` endings: src/core/allowed-tag-lines.ts); the
 * server expands them when the list is sent, so a line it could not place is a problem of its row here.
 */
export function rowsToAllowedTags(rows: readonly (readonly CellValue[])[], appliesToIndex: number, tagsIndex: number): AllowedTagsRead {
  const everyone: Lines = { combinations: [], rowNumbers: [] }
  const groups = new Map<string, { appliesTo: string[] } & Lines>()
  const problems: AllowedTagsRowProblem[] = []
  rows.forEach((row, i) => {
    const rowNumber = i + 2
    const applies = row[appliesToIndex]
    const tags = row[tagsIndex]
    if (isEmptyCell(applies) && isEmptyCell(tags)) return
    const combination = cellText(tags).trim()
    if (combination === '') {
      problems.push({
        rowNumber,
        message: `Row ${rowNumber}: Tags is empty; write a combination such as "Client, Project" or delete the row`,
      })
      return
    }
    const who = cellText(applies).trim()
    if (who === '' || who.toLowerCase() === EVERYONE) {
      everyone.combinations.push(combination)
      everyone.rowNumbers.push(rowNumber)
      return
    }
    const parsed = parseAppliesTo(who)
    if (!parsed.ok) {
      problems.push({ rowNumber, message: `Row ${rowNumber}: Applies to "${who}" ${parsed.message}` })
      return
    }
    const key = parsed.names.join(', ')
    const group = groups.get(key) ?? { appliesTo: parsed.names, combinations: [], rowNumbers: [] }
    group.combinations.push(combination)
    group.rowNumbers.push(rowNumber)
    groups.set(key, group)
  })
  for (const [lines, whom] of [[everyone, EVERYONE] as const, ...[...groups].map(([key, group]) => [group, key] as const)]) {
    const expanded = expandTagLines(lines.combinations)
    if (!expanded.ok) {
      const rowNumber = lines.rowNumbers[expanded.index]!
      problems.push({ rowNumber, message: `Row ${rowNumber}: Tags ${expanded.problem} among the rows for ${whom}` })
    }
  }
  if (problems.length > 0) return { ok: false, problems: problems.sort((a, b) => a.rowNumber - b.rowNumber) }
  return {
    ok: true,
    allowed: {
      everyone: everyone.combinations,
      groups: [...groups.values()].map((g) => ({ appliesTo: g.appliesTo, combinations: g.combinations })),
    },
  }
}

interface Lines {
  combinations: string[]
  rowNumbers: number[]
}

/** An `Applies to` cell other than everyone: its `[user]` and `{team}` entries, as written. */
export function parseAppliesTo(text: string): { ok: true; names: string[] } | { ok: false; message: string } {
  const names: string[] = []
  const pattern = /\s*(\[[^\]]+\]|\{[^}]+\})\s*(,|$)/y
  let at = 0
  while (at < text.length) {
    pattern.lastIndex = at
    const m = pattern.exec(text)
    if (!m) {
      return { ok: false, message: 'is not understood; write everyone, users as [DOMAIN\\user] or teams as {Team}, separated by commas' }
    }
    names.push(m[1]!)
    at = pattern.lastIndex
  }
  return names.length > 0 ? { ok: true, names } : { ok: false, message: 'names nobody' }
}

/**
 * Fingerprint of a list as the server would hold it: each list expanded as the server expands it on POST
 * (prefix lines, src/core/allowed-tag-lines.ts), combinations compared as tag sequences (spacing after commas
 * does not matter), order kept. The tab (as a manager wrote it) and the server's listing (expanded) of one list
 * therefore fingerprint alike.
 */
export function allowedTagsFingerprint(allowed: AllowedTags): string {
  const norm = (c: string) =>
    c
      .split(',')
      .map((t) => t.trim())
      .join(', ')
  const expand = (lines: readonly string[]) => {
    const expanded = expandTagLines(lines)
    // A list the grammar cannot place is never sent (`rowsToAllowedTags` refuses it): it counts as written.
    return (expanded.ok ? expanded.combinations : lines).map(norm)
  }
  return fnv1a64Base64url(JSON.stringify([expand(allowed.everyone), allowed.groups.map((g) => [g.appliesTo, expand(g.combinations)])]))
}
