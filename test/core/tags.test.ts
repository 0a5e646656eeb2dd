import { describe, expect, it } from 'vitest'
import {
  cellsToTags,
  checkAllowedTags,
  combineTags,
  joinTagName,
  parseCombination,
  sameTagsApartFromLabelPlacement,
  splitTagName,
  splitTags,
  tagsToCells,
  validateTagLimits,
} from '../../src/core/tags.ts'
import type { AllowedTags } from '../../src/timeline/model.ts'

describe('tag names', () => {
  it('splits on commas, trims and drops empty tags; joins with ", "', () => {
    expect(splitTagName(' Acme ,Website,, Design ,')).toEqual(['Acme', 'Website', 'Design'])
    expect(splitTagName('')).toEqual([])
    expect(joinTagName(['Acme', 'Website'])).toBe('Acme, Website')
  })

  it('keeps labels apart from the hierarchy and recombines in server order', () => {
    const tags = [':billable', 'Acme', 'Website', ':onsite']
    expect(splitTags(tags)).toEqual({ hierarchy: ['Acme', 'Website'], labels: [':billable', ':onsite'] })
    expect(tagsToCells(tags)).toEqual({ tags: 'Acme, Website', labels: ':billable, :onsite' })
    expect(combineTags(splitTags(tags))).toEqual(['Acme', 'Website', ':billable', ':onsite'])
  })

  it('adds a missing colon to a typed label and moves a :label out of Tags', () => {
    expect(cellsToTags('Acme, :urgent, Website', 'billable, :onsite')).toEqual({
      hierarchy: ['Acme', 'Website'],
      labels: [':billable', ':onsite', ':urgent'],
    })
  })

  it('treats label placement as no change, but hierarchy order and case as changes', () => {
    expect(sameTagsApartFromLabelPlacement([':b', 'A', 'B'], ['A', 'B', ':b'])).toBe(true)
    expect(sameTagsApartFromLabelPlacement(['B', 'A'], ['A', 'B'])).toBe(false)
    expect(sameTagsApartFromLabelPlacement(['a'], ['A'])).toBe(false)
  })

  it('enforces at most 10 tags and 200 characters per tag', () => {
    expect(validateTagLimits(Array.from({ length: 10 }, (_, i) => `t${i}`))).toEqual([])
    expect(validateTagLimits(Array.from({ length: 11 }, (_, i) => `t${i}`))).toEqual([{ kind: 'too-many-tags', count: 11 }])
    expect(validateTagLimits(['x'.repeat(200)])).toEqual([])
    expect(validateTagLimits(['x'.repeat(201)])).toEqual([{ kind: 'tag-too-long', tag: 'x'.repeat(201), length: 201 }])
  })
})

describe('allowed tags', () => {
  const allowed: AllowedTags = {
    everyone: ['Internal, Admin', 'Acme, Website,.'],
    groups: [
      { appliesTo: ['[ACME\\anna]'], combinations: ['Acme, Design'] },
      { appliesTo: ['{Sales}', '[ACME\\dora, ACME\\ed]'], combinations: ['Globex, Pitch'] },
    ],
  }

  it('parses the ,. no-append marker', () => {
    expect(parseCombination('Acme, Website,.')).toEqual({ tags: ['Acme', 'Website'], noAppend: true })
    expect(parseCombination('Acme, Website')).toEqual({ tags: ['Acme', 'Website'], noAppend: false })
  })

  it.each([
    ['everyone line, case-insensitive', ['internal', 'ADMIN'], 'ACME\\ben', [], {}, true],
    ['labels are not checked', ['Internal', 'Admin', ':billable'], 'ACME\\ben', [], {}, true],
    ['user line for that user', ['Acme', 'Design'], 'acme\\ANNA', [], {}, true],
    ['user line for another user', ['Acme', 'Design'], 'ACME\\ben', [], {}, false],
    ['team line for a member', ['Globex', 'Pitch'], 'ACME\\ben', ['sales'], {}, true],
    ['several users in one entry', ['Globex', 'Pitch'], 'ACME\\ed', [], {}, true],
    ['a prefix of a line is not allowed', ['Internal'], 'ACME\\ben', [], {}, false],
    ['appending is allowed by default, as ManicTime documents', ['Internal', 'Admin', 'Payroll'], 'ACME\\ben', [], {}, true],
    ['no appending where the server unchecked it', ['Internal', 'Admin', 'Payroll'], 'ACME\\ben', [], { userCanAppend: false }, false],
    ['appending when the user can append', ['Internal', 'Admin', 'Payroll'], 'ACME\\ben', [], { userCanAppend: true }, true],
    [',. forbids appending', ['Acme', 'Website', 'Extra'], 'ACME\\ben', [], { userCanAppend: true }, false],
    ['a ,. line itself is allowed', ['Acme', 'Website'], 'ACME\\ben', [], {}, true],
    ['no hierarchy tags is not checked', [':billable'], 'ACME\\ben', [], {}, true],
  ] as const)('%s', (_name, tags, user, teams, options, ok) => {
    expect(checkAllowedTags(tags, user, allowed, teams, options).ok).toBe(ok)
  })

  it('says which tags are not allowed for whom', () => {
    expect(checkAllowedTags(['Nope'], 'ACME\\ben', allowed, [])).toEqual({
      ok: false,
      applicable: 2,
      reason: '"Nope" is not in the allowed tags for ACME\\ben',
    })
  })

  it('allows everything when no list applies', () => {
    expect(checkAllowedTags(['Anything'], 'ACME\\ben', { everyone: [], groups: [] }, []).ok).toBe(true)
  })
})

describe('labels typed in both columns', () => {
  it('keeps one of each label, whichever column it was typed in', async () => {
    const { cellsToTags } = await import('../../src/core/tags.ts')
    expect(cellsToTags('Acme, Website, :billable, :urgent', ':billable')).toEqual({
      hierarchy: ['Acme', 'Website'],
      labels: [':billable', ':urgent'],
    })
    expect(cellsToTags('Acme', ':Billable, billable')).toEqual({ hierarchy: ['Acme'], labels: [':Billable'] })
  })
})
