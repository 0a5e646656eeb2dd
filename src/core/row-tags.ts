/**
 * A row's Tags and Labels cells: split, combined and held to the server's limits once per distinct pair of texts
 * a read sees, then judged against the server's activity (text the tool wrote, the server's order of the same
 * tags) and the allowed combinations. It stands apart because the tag rules of a row have their own memo and
 * their own words for a manager, and tags.ts beneath them knows tags, not cells.
 */
import type { CellValue } from './sheet.ts'
import type { Activity } from './activity.ts'
import { ACTIVITY_COLUMN } from './columns.ts'
import { cellText, excerpt, isErrorValue, isFormula } from './cells.ts'
import {
  cellsToTags,
  checkAllowedTags,
  combineTags,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  sameTagsApartFromLabelPlacement,
  tagsToCells,
  validateTagLimits,
} from './tags.ts'
import type { KnownUser, RowContext } from './row-context.ts'
import { NO_PROBLEMS, problem, type RowProblem } from './row-outcome.ts'

const C = ACTIVITY_COLUMN

/** The Tags and Labels cells of a row as read, and what they say (`tagCellsOf`). */
export interface TagFields {
  tagsCell: CellValue | undefined
  labelsCell: CellValue | undefined
  /** Tags and labels combined, undefined when they break a rule (`tagProblems` says which). Frozen: rows share it. */
  combined: readonly string[] | undefined
  tagProblems: readonly RowProblem[]
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** What the Tags and Labels cells say: the tags combined, undefined when they break a rule (`problems` says which). */
export interface TagCells {
  combined: readonly string[] | undefined
  problems: readonly RowProblem[]
}

/** `readTagCells` once per distinct pair of texts a memo has seen. */
export function tagCellsOf(tagsText: string, labelsText: string, memo: { tags: Map<string, Map<string, TagCells>> } | undefined): TagCells {
  if (!memo) return readTagCells(tagsText, labelsText)
  let byLabels = memo.tags.get(tagsText)
  if (!byLabels) {
    byLabels = new Map()
    memo.tags.set(tagsText, byLabels)
  }
  let found = byLabels.get(labelsText)
  if (!found) {
    found = readTagCells(tagsText, labelsText)
    byLabels.set(labelsText, found)
  }
  return found
}

/**
 * Tags and Labels split, combined and held to the server's limits. Frozen, lists and problems alike: rows share
 * it, so a change made for one row must throw rather than reach the others.
 */
function readTagCells(tagsText: string, labelsText: string): TagCells {
  const combined = combineTags(cellsToTags(tagsText, labelsText))
  if (combined.length === 0) {
    return freezeTagCells(undefined, [
      problem('no-tags', C.tags, 'is empty; a tag activity needs at least one tag, like "Client, Project"'),
    ])
  }
  const out: RowProblem[] = []
  for (const p of validateTagLimits(combined)) {
    if (p.kind === 'too-many-tags') {
      out.push(
        problem(
          'too-many-tags',
          C.tags,
          `has ${p.count} tags with the labels; at most ${MAX_TAGS} are allowed — remove ${p.count - MAX_TAGS}`,
        ),
      )
    } else {
      out.push(
        problem('tag-too-long', C.tags, `the tag "${excerpt(p.tag)}" has ${p.length} characters; at most ${MAX_TAG_LENGTH} are allowed`),
      )
    }
  }
  return out.length === 0 ? freezeTagCells(combined, NO_PROBLEMS) : freezeTagCells(undefined, out)
}

function freezeTagCells(combined: string[] | undefined, problems: readonly RowProblem[]): TagCells {
  for (const p of problems) Object.freeze(p)
  return Object.freeze({
    combined: combined && Object.freeze(combined),
    problems: Object.freeze(problems),
  })
}

/** The row's tags against the server's activity (what the tool wrote, the server's order) and the allowed combinations. */
export function judgeTags(
  f: TagFields,
  originalActivity: Activity | undefined,
  user: KnownUser | undefined,
  ctx: RowContext,
  out: RowProblem[],
): { tags: string[]; allowedProblem: RowProblem | undefined } | undefined {
  // Most rows hold plain text in both: checked before building the pairs to look at.
  const suspect = (v: CellValue | undefined) => isFormula(v) || isErrorValue(v)
  if (suspect(f.tagsCell) || suspect(f.labelsCell)) {
    for (const [column, value] of [
      [C.tags, f.tagsCell],
      [C.labels, f.labelsCell],
    ] as const) {
      if (!isFormula(value) && !isErrorValue(value)) continue
      const wrote = originalActivity && value === tagsToCells(originalActivity.tags)[column === C.tags ? 'tags' : 'labels']
      if (wrote) continue
      if (isFormula(value)) {
        out.push(problem('formula', column, `holds a formula (${excerpt(value)}); type the tags as plain text`))
      } else {
        out.push(
          problem(
            'error-value',
            column,
            `holds the spreadsheet error ${cellText(value).trim()}, not ${column === C.tags ? 'tags' : 'labels'}; type them as plain text, like ${column === C.tags ? '"Client, Project"' : '":billable"'}`,
          ),
        )
      }
    }
  }
  out.push(...f.tagProblems)
  const combined = f.combined
  if (!combined) return undefined
  // The read's own list, frozen and shared by the rows with the same cells (`readTagCells`): nothing changes a
  // row's tags once read, and a change would throw instead of reaching the other rows.
  // Most rows show the server's tags as they are: the same list, nothing to reorder (and nothing to copy).
  const tagsOut =
    !originalActivity || sameList(combined, originalActivity.tags)
      ? (combined as string[])
      : sameTagsApartFromLabelPlacement(combined, originalActivity.tags)
        ? [...originalActivity.tags]
        : (combined as string[])
  let allowedProblem: RowProblem | undefined
  if (ctx.allowedTags && user) {
    const verdict = checkAllowedTags(tagsOut, user.username, ctx.allowedTags, user.teams ?? [], {
      userCanAppend: ctx.userCanAppend ?? true,
    })
    if (!verdict.ok) {
      allowedProblem = problem(
        'tags-not-allowed',
        C.tags,
        `${excerpt(verdict.reason, 300)}; pick a combination from the dropdown (Allowed tags tab)`,
        ctx.allowedTagsSeverity ?? 'warning',
      )
    }
  }
  return { tags: tagsOut, allowedProblem }
}
