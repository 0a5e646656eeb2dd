/**
 * The Allowed tags list as one target sees and changes it (decisions/0022-team-boundaries.md). The server's POST
 * replaces the whole list, and the transfer account may replace anyone's lines, so the target's part is cut out
 * of the list on the way to the tab and put back into the server's own list on the way back:
 *
 * - `editable`: the lines the target may change: its own groups (every name a covered user or a team of covered
 *   members), and the everyone lines where `allowedTagsEdits` is `own-and-everyone`.
 * - `fixed`: the lines the tab shows but the target may not change: groups shared with people outside it, and
 *   the everyone lines otherwise.
 * - `foreign`: lines that apply to nobody the target covers. An export never shows them; a tab that holds them
 *   (typed by a manager, or left by an older version) may not send them.
 */
import type { AllowedTags, AllowedTagsGroup } from './activity.ts'
import { allowedTagsFingerprint } from './allowed-tags-sheet.ts'
import type { AllowedTagsEdits, TargetScope } from './target-scope.ts'

/** Whom the list is cut for: the target's scope and what it may change. */
export interface TagsScope {
  scope: TargetScope
  edits: AllowedTagsEdits
}

export interface AllowedTagsParts {
  editable: AllowedTags
  fixed: AllowedTags
  foreign: AllowedTags
}

/** A list cut into its three parts, each in list order. */
export function partsOf(list: AllowedTags, { scope, edits }: TagsScope): AllowedTagsParts {
  const everyoneEditable = edits === 'own-and-everyone'
  const parts: AllowedTagsParts = {
    editable: { everyone: everyoneEditable ? list.everyone : [], groups: [] },
    fixed: { everyone: everyoneEditable ? [] : list.everyone, groups: [] },
    foreign: { everyone: [], groups: [] },
  }
  for (const group of list.groups) {
    if (!scope.reaches(group.appliesTo)) parts.foreign.groups.push(group)
    else if (edits !== 'read-only' && scope.owns(group.appliesTo)) parts.editable.groups.push(group)
    else parts.fixed.groups.push(group)
  }
  return parts
}

/** What the target's tab shows of the server's list: every line but the foreign ones, in server order. */
export function viewOf(list: AllowedTags, scope: TargetScope): AllowedTags {
  return scope.whole ? list : { everyone: list.everyone, groups: list.groups.filter((g) => scope.reaches(g.appliesTo)) }
}

/** Fingerprints of a view as the state records what the tool wrote: the whole of it and its two parts. */
export interface ViewFingerprints {
  whole: string
  editable: string
  fixed: string
}

export function viewFingerprints(view: AllowedTags, tagsScope: TagsScope): ViewFingerprints {
  const parts = partsOf(view, tagsScope)
  return {
    whole: allowedTagsFingerprint(view),
    editable: allowedTagsFingerprint(parts.editable),
    fixed: allowedTagsFingerprint(parts.fixed),
  }
}

/**
 * The list to send: the server's `current` list with only the target's editable lines replaced by the sheet's;
 * every other line stays as the server has it, in its place. A group of the target's that the sheet no longer
 * holds is dropped; a new one goes last, in the sheet's order. Groups are matched by their `Applies to`.
 */
export function mergeAllowedTags(current: AllowedTags, sheet: AllowedTags, tagsScope: TagsScope): AllowedTags {
  const mine = editableGroup(tagsScope)
  const fromSheet = new Map<string, AllowedTagsGroup>()
  for (const g of partsOf(sheet, tagsScope).editable.groups) if (!fromSheet.has(groupKey(g))) fromSheet.set(groupKey(g), g)
  const placed = new Set<string>()
  const groups: AllowedTagsGroup[] = []
  for (const g of current.groups) {
    if (!mine(g)) {
      groups.push(g)
      continue
    }
    const key = groupKey(g)
    const replacement = placed.has(key) ? undefined : fromSheet.get(key)
    placed.add(key)
    if (replacement) groups.push({ appliesTo: g.appliesTo, combinations: replacement.combinations })
  }
  for (const [key, g] of fromSheet) if (!placed.has(key)) groups.push(g)
  return { everyone: tagsScope.edits === 'own-and-everyone' ? sheet.everyone : current.everyone, groups }
}

/**
 * What `next` changes of `current` beyond what the target may change, in words; empty when nothing. The last
 * check before a POST: whatever a sheet holds, every line but the target's own leaves as the server has it.
 */
export function changesBeyondScope(current: AllowedTags, next: AllowedTags, tagsScope: TagsScope): string[] {
  const problems: string[] = []
  if (tagsScope.edits !== 'own-and-everyone' && JSON.stringify(current.everyone) !== JSON.stringify(next.everyone)) {
    problems.push('the lines for everyone')
  }
  const mine = editableGroup(tagsScope)
  const before = current.groups.filter((g) => !mine(g))
  const after = next.groups.filter((g) => !mine(g))
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    const kept = (list: AllowedTagsGroup[]) => new Set(list.map((g) => JSON.stringify(g)))
    const [was, is] = [kept(before), kept(after)]
    const differ = [...before.filter((g) => !is.has(JSON.stringify(g))), ...after.filter((g) => !was.has(JSON.stringify(g)))]
    // Only the order changed when every group is still there: name them all.
    problems.push(`the lines for ${[...new Set((differ.length > 0 ? differ : before).map(groupKey))].join('; ')}`)
  }
  return problems
}

function editableGroup({ scope, edits }: TagsScope): (g: AllowedTagsGroup) => boolean {
  return (g) => edits !== 'read-only' && scope.reaches(g.appliesTo) && scope.owns(g.appliesTo)
}

/** A group's `Applies to` as one text: how the sheet's rows and the server's groups are matched. */
export function groupKey(group: Pick<AllowedTagsGroup, 'appliesTo'>): string {
  return group.appliesTo.map((e) => e.trim()).join(', ')
}
