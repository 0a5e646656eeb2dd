import { describe, expect, test } from 'vitest'
import type { AllowedTags } from '../../src/timeline/model.ts'
import {
  assertSerialisable,
  formatAllowedTagsText,
  parseAllowedTagsText,
  parseFlatListing,
  toFlatListing,
  toTagCombinationListBody,
} from '../../src/timeline/tag-combinations.ts'

const SAMPLE: AllowedTags = {
  everyone: ['Client A, Project 1', 'Client A, Project 2, :billable', 'Internal,'],
  groups: [
    { appliesTo: ['[CORP\\alice]', '[CORP\\bob]'], combinations: ['Client B, Secret', ',Design,'] },
    { appliesTo: ['{Sales}'], combinations: ['Leads, Calls,.'] },
  ],
}
const SAMPLE_LISTING = [
  'Client A, Project 1',
  'Client A, Project 2, :billable',
  'Internal,',
  '',
  '[CORP\\alice]',
  '[CORP\\bob]',
  'Client B, Secret',
  ',Design,',
  '',
  '{Sales}',
  'Leads, Calls,.',
]

describe('flat listing', () => {
  test('parses everyone first, then groups after empty entries', () => {
    expect(parseFlatListing(SAMPLE_LISTING)).toEqual(SAMPLE)
  })

  test('serialises back to the same listing', () => {
    expect(toFlatListing(SAMPLE)).toEqual(SAMPLE_LISTING)
  })

  test('an empty listing and a group without combinations', () => {
    expect(parseFlatListing([])).toEqual({ everyone: [], groups: [] })
    expect(parseFlatListing(['', '{Team}'])).toEqual({ everyone: [], groups: [{ appliesTo: ['{Team}'], combinations: [] }] })
  })

  test('the POST body carries everyone and each group', () => {
    expect(toTagCombinationListBody(SAMPLE)).toEqual({
      tagCombinations: SAMPLE.everyone,
      userTagCombinationLists: [
        { users: ['[CORP\\alice]', '[CORP\\bob]'], tagCombinations: ['Client B, Secret', ',Design,'] },
        { users: ['{Sales}'], tagCombinations: ['Leads, Calls,.'] },
      ],
    })
  })

  test.each([
    ['an empty combination', { everyone: [''], groups: [] }, 'empty tag combination for everyone'],
    ['a blank group combination', { everyone: [], groups: [{ appliesTo: ['{T}'], combinations: ['  '] }] }, 'in group 1'],
    ['a combination that looks like a user', { everyone: ['[x]'], groups: [] }, 'looks like a user or team entry'],
    ['an identifier without brackets', { everyone: [], groups: [{ appliesTo: ['alice'], combinations: ['a'] }] }, '"alice" in group 1'],
  ])('refuses %s', (_name, allowed, message) => {
    expect(() => toFlatListing(allowed)).toThrow(message)
    expect(() => toTagCombinationListBody(allowed)).toThrow(message)
    expect(() => assertSerialisable(allowed)).toThrow(expect.objectContaining({ code: 'TS_VALIDATION' }))
  })
})

/** Small deterministic generator, so failures reproduce. */
function generator(seed: number) {
  let state = seed
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state / 2 ** 31
  }
  const int = (n: number) => Math.floor(next() * n)
  const words = ['Client', 'Proj', 'Task', ':billable', 'Ünïcode', 'a,b', 'x.', 'Design', '(x)', 'de\\v']
  const combination = () => {
    const parts = Array.from({ length: 1 + int(4) }, () => words[int(words.length)]!)
    const text = parts.join(', ')
    return int(5) === 0 ? `,${text}` : int(7) === 0 ? `${text},` : text
  }
  const identifier = () => (int(2) === 0 ? `[DOM\\user${int(50)}]` : `{Team ${int(9)}}`)
  return (): AllowedTags => ({
    everyone: Array.from({ length: int(5) }, combination),
    groups: Array.from({ length: int(4) }, () => ({
      appliesTo: Array.from({ length: 1 + int(3) }, identifier),
      combinations: Array.from({ length: int(4) }, combination),
    })),
  })
}

describe('round trips over generated lists', () => {
  const generate = generator(42)
  const cases = Array.from({ length: 300 }, generate)

  test('AllowedTags → flat listing → AllowedTags', () => {
    for (const allowed of cases) expect(parseFlatListing(toFlatListing(allowed))).toEqual(allowed)
  })

  test('flat listing → AllowedTags → flat listing', () => {
    for (const allowed of cases) {
      const listing = toFlatListing(allowed)
      expect(toFlatListing(parseFlatListing(listing))).toEqual(listing)
    }
  })

  test('POST body carries exactly the parsed values', () => {
    for (const allowed of cases) {
      const body = toTagCombinationListBody(allowed)
      expect({
        everyone: body.tagCombinations,
        groups: body.userTagCombinationLists.map((g) => ({ appliesTo: g.users, combinations: g.tagCombinations })),
      }).toEqual(allowed)
    }
  })

  test('text form round-trips lists whose groups have combinations', () => {
    for (const allowed of cases) {
      const withCombinations = { ...allowed, groups: allowed.groups.filter((g) => g.combinations.length > 0) }
      expect(parseAllowedTagsText(formatAllowedTagsText(withCombinations))).toEqual(withCombinations)
    }
  })
})

describe('text form', () => {
  test('identifier lines start a group; lists in one bracket split; comments and blanks ignored', () => {
    const text = [
      '# allowed tags',
      'Client A, Project 1',
      '',
      '[CORP\\alice, CORP\\bob]',
      '{Sales}',
      'Client B, Secret',
      '  ,Design,  ',
      '{Support}',
      'Tickets',
    ].join('\r\n')
    expect(parseAllowedTagsText(text)).toEqual({
      everyone: ['Client A, Project 1'],
      groups: [
        { appliesTo: ['[CORP\\alice]', '[CORP\\bob]', '{Sales}'], combinations: ['Client B, Secret', ',Design,'] },
        { appliesTo: ['{Support}'], combinations: ['Tickets'] },
      ],
    })
  })

  test('formats with a blank line between blocks', () => {
    expect(formatAllowedTagsText(SAMPLE)).toBe(
      'Client A, Project 1\nClient A, Project 2, :billable\nInternal,\n\n[CORP\\alice]\n[CORP\\bob]\nClient B, Secret\n,Design,\n\n{Sales}\nLeads, Calls,.\n',
    )
    expect(formatAllowedTagsText({ everyone: [], groups: [] })).toBe('')
  })
})
