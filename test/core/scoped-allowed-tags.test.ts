import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { AllowedTags } from '../../src/core/activity.ts'
import { allowedTagsToRows, rowsToAllowedTags } from '../../src/core/allowed-tags-sheet.ts'
import { changesBeyondScope, groupKey, mergeAllowedTags, partsOf, viewOf, type TagsScope } from '../../src/core/scoped-allowed-tags.ts'
import { targetScope, type AllowedTagsEdits } from '../../src/core/target-scope.ts'

const directory = { Design: ['carol@example.com', 'dave@example.com'], Support: ['dave@example.com', 'erin@example.com'] }
const scope = targetScope({ users: ['carol@example.com', 'dave@example.com'], teams: ['Design'], teamDirectory: directory })
const own: TagsScope = { scope, edits: 'own' }

const server: AllowedTags = {
  everyone: ['Internal, Admin', 'Internal, Meeting'],
  groups: [
    { appliesTo: ['[alice@example.com]'], combinations: ['Secret Client, Due diligence'] },
    { appliesTo: ['{Design}'], combinations: ['Acme, Website, Design'] },
    { appliesTo: ['{Support}'], combinations: ['Initech, Tickets'] },
    { appliesTo: ['[carol@example.com]'], combinations: ['Acme, Review'] },
    { appliesTo: ['{Board}'], combinations: ['Board, Minutes'] },
  ],
}

describe('the Allowed tags list as a target sees it', () => {
  it('shows the everyone lines and the groups that apply to its people, never another user’s or team’s', () => {
    expect(viewOf(server, scope)).toEqual({
      everyone: server.everyone,
      groups: [server.groups[1], server.groups[2], server.groups[3]],
    })
  })

  it('splits what it may change from what it only shows', () => {
    const parts = partsOf(viewOf(server, scope), own)
    expect(parts.editable).toEqual({ everyone: [], groups: [server.groups[1], server.groups[3]] })
    expect(parts.fixed).toEqual({ everyone: server.everyone, groups: [server.groups[2]] })
    expect(parts.foreign.groups).toEqual([])
    expect(partsOf(server, own).foreign.groups).toEqual([server.groups[0], server.groups[4]])
    expect(partsOf(viewOf(server, scope), { scope, edits: 'own-and-everyone' }).editable.everyone).toEqual(server.everyone)
    expect(partsOf(viewOf(server, scope), { scope, edits: 'read-only' }).editable).toEqual({ everyone: [], groups: [] })
  })

  it('merges the sheet’s own lines into the server’s list, every other line kept in its place', () => {
    const sheet: AllowedTags = {
      // A manager emptied the everyone lines and changed Support's: neither is theirs to change.
      everyone: [],
      groups: [
        { appliesTo: ['{Design}'], combinations: ['Acme, Website, Design', 'Acme, Website, Build'] },
        { appliesTo: ['{Support}'], combinations: ['Hacked'] },
        { appliesTo: ['[dave@example.com]'], combinations: ['Dave, Only'] },
      ],
    }
    expect(mergeAllowedTags(server, sheet, own)).toEqual({
      everyone: server.everyone,
      groups: [
        server.groups[0],
        { appliesTo: ['{Design}'], combinations: ['Acme, Website, Design', 'Acme, Website, Build'] },
        server.groups[2],
        // carol's own line is gone from the sheet: the group goes.
        server.groups[4],
        { appliesTo: ['[dave@example.com]'], combinations: ['Dave, Only'] },
      ],
    })
  })

  it('names a change beyond the target, and finds none in a merge', () => {
    const next = { ...server, everyone: ['Changed'] }
    expect(changesBeyondScope(server, next, own)).toEqual(['the lines for everyone'])
    expect(changesBeyondScope(server, next, { scope, edits: 'own-and-everyone' })).toEqual([])
    const alice = { ...server, groups: [{ ...server.groups[0]!, combinations: ['Typed by a manager'] }, ...server.groups.slice(1)] }
    expect(changesBeyondScope(server, alice, own)).toEqual(['the lines for [alice@example.com]'])
  })

  const line = fc.constantFrom<string>('A, B', 'A, C', 'Secret, X', 'Internal, Admin', 'Z')
  const appliesTo = fc.constantFrom<string[]>(
    ['[alice@example.com]'],
    ['[carol@example.com]'],
    ['[dave@example.com]', '[alice@example.com]'],
    ['{Design}'],
    ['{Support}'],
    ['{Board}'],
    ['[erin@example.com]'],
  )
  const list: fc.Arbitrary<AllowedTags> = fc.record({
    everyone: fc.array(line, { maxLength: 3 }),
    groups: fc.array(fc.record({ appliesTo, combinations: fc.array(line, { minLength: 1, maxLength: 3 }) }), { maxLength: 5 }),
  })
  const edits = fc.constantFrom<AllowedTagsEdits>('read-only', 'own', 'own-and-everyone')

  it('whatever the sheet holds, a merge leaves every line the target may not change as the server has it', () => {
    fc.assert(
      fc.property(list, list, edits, (current, sheet, e) => {
        const tagsScope = { scope, edits: e }
        const next = mergeAllowedTags(current, sheet, tagsScope)
        expect(changesBeyondScope(current, next, tagsScope)).toEqual([])
        // Lines for nobody the target covers are the server's, byte for byte and in order.
        expect(partsOf(next, tagsScope).foreign).toEqual(partsOf(current, tagsScope).foreign)
      }),
    )
  })

  it('a merge of the target’s own view changes nothing', () => {
    fc.assert(
      fc.property(list, edits, (current, e) => {
        const tagsScope = { scope, edits: e }
        // The view as the tab holds it: written to rows and read back, as an export and an import do.
        const read = rowsToAllowedTags(allowedTagsToRows(viewOf(current, scope)), 0, 1)
        if (!read.ok) throw new Error('the tab could not be read back')
        const next = mergeAllowedTags(current, read.allowed, tagsScope)
        expect(viewOf(next, scope).everyone).toEqual(current.everyone)
        // The tab holds one group per Applies to (as the server's groups of one name read back), so compare by name.
        const byName = (list: AllowedTags) => {
          const out = new Map<string, string[]>()
          for (const g of partsOf(viewOf(list, scope), tagsScope).editable.groups)
            out.set(groupKey(g), [...(out.get(groupKey(g)) ?? []), ...g.combinations])
          return out
        }
        expect(byName(next)).toEqual(byName(current))
      }),
    )
  })
})
