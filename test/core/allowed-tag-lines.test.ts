import { describe, expect, it } from 'vitest'
import { expandTagLines } from '../../src/core/allowed-tag-lines.ts'

describe('allowed-tags text grammar', () => {
  it('gives the six combinations of the administration page example: consecutive prefix lines are alternatives', () => {
    expect(expandTagLines(['Project X,', 'Project Y,', ',Design', ',Development', ',Testing'])).toEqual({
      ok: true,
      combinations: [
        'Project X, Design',
        'Project X, Development',
        'Project X, Testing',
        'Project Y, Design',
        'Project Y, Development',
        'Project Y, Testing',
      ],
    })
  })

  it('multiplies alternatives level by level', () => {
    expect(expandTagLines(['Acme,', 'Globex,', ',Design,', ',Build,', ',,Task1', ',,Task2'])).toEqual({
      ok: true,
      combinations: [
        'Acme, Design, Task1',
        'Acme, Design, Task2',
        'Acme, Build, Task1',
        'Acme, Build, Task2',
        'Globex, Design, Task1',
        'Globex, Design, Task2',
        'Globex, Build, Task1',
        'Globex, Build, Task2',
      ],
    })
  })

  it('starts a new prefix when a prefix line follows sub-lines of its depth', () => {
    expect(expandTagLines(['Project X,', ',Design', 'Project Y,', ',Testing'])).toEqual({
      ok: true,
      combinations: ['Project X, Design', 'Project Y, Testing'],
    })
  })

  it('expands the v2 guide example and keeps ",." endings as written after each alternative', () => {
    expect(expandTagLines(['project,', ',task1', ',task2'])).toEqual({ ok: true, combinations: ['project, task1', 'project, task2'] })
    expect(expandTagLines(['A,', 'B,', ',Review,.', 'Other, Thing,.', '  Plain ,  Line  '])).toEqual({
      ok: true,
      combinations: ['A, Review,.', 'B, Review,.', 'Other, Thing,.', 'Plain, Line'],
    })
  })

  it('lists nothing for a prefix line no sub-line follows, and skips blank lines', () => {
    expect(expandTagLines(['Lonely,', '', 'Next'])).toEqual({ ok: true, combinations: ['Next'] })
  })

  it('leaves an already expanded list as it is', () => {
    const expanded = ['Project X, Design', 'Project Y, Testing,.', 'Internal']
    expect(expandTagLines(expanded)).toEqual({ ok: true, combinations: expanded })
  })

  it('refuses a sub-line whose prefix a shallower line already ended, naming its index', () => {
    expect(expandTagLines(['A,', ',x', 'B', ',y'])).toEqual({
      ok: false,
      index: 3,
      problem: expect.stringContaining('",y" starts with 1 comma(s) but no prefix line'),
    })
    expect(expandTagLines([',orphan'])).toMatchObject({ ok: false, index: 0 })
    expect(expandTagLines(['A,', ',,deep'])).toMatchObject({ ok: false, index: 1, problem: expect.stringContaining('2 comma(s)') })
  })

  it('refuses an empty tag', () => {
    expect(expandTagLines(['A,', ', ,B'])).toEqual({ ok: false, index: 1, problem: '", ,B" has an empty tag' })
  })
})
