/**
 * The undo planner: every kind of write a run completed (post, put, delete)
 * against every state the server can be in now (as the run left it, changed
 * since, gone), plus the cases that make a repeated or interrupted undo safe.
 */
import { describe, expect, it } from 'vitest'
import { fingerprintOf } from '../../src/core/plan.ts'
import type { ServerActivity } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import { parseOffsetInstant } from '../../src/core/instant.ts'
import { fingerprintFor, planUndo, startDatesOf, undoReadRanges, type UndoItem } from '../../src/core/undo-plan.ts'
import type { JournalRecord, JournalRun } from '../../src/state/journal.ts'
import type { ActivityInput } from '../../src/timeline/model.ts'

const TL = 'tl-alice'
const OWNER = 'alice'
const owners = new Map([[TL, OWNER]])

const v = (notes: string, start = '2026-11-09T09:00:00+01:00', tags = ['Acme', 'Build']): ActivityInput => ({
  tags,
  notes,
  start,
  duration: 3600,
})
const fp = (input: ActivityInput) => fingerprintFor(OWNER, input)

/** Builds a journal: each write is [intent fields, done fields or undefined (no answer)]. */
function journal(writes: [Record<string, unknown>, Record<string, unknown> | undefined][], end: string | null = 'success'): JournalRun {
  const records: JournalRecord[] = [{ type: 'start', runId: 'run-1', command: 'import', at: '2026-11-10T11:00:00Z' }]
  const out: JournalRun['writes'] = []
  writes.forEach(([intent, done], i) => {
    const ir = { type: 'intent', id: i + 1, ...intent } as Extract<JournalRecord, { type: 'intent' }>
    records.push(ir)
    const dr = done && ({ type: 'done', id: i + 1, ...done } as Extract<JournalRecord, { type: 'done' }>)
    if (dr) records.push(dr)
    out.push({ intent: ir, outcome: dr })
  })
  if (end !== null) records.push({ type: 'end', result: end, at: '2026-11-10T11:01:00Z' })
  return { runId: 'run-1', command: 'import', file: '/x/run-1.jsonl', records, ended: end !== null, writes: out }
}

const post = (id: number, input: ActivityInput) =>
  [
    { op: 'post', timelineKey: TL, user: OWNER, fingerprint: fp(input), input },
    { entityId: id, fingerprint: fp(input), after: input },
  ] as [Record<string, unknown>, Record<string, unknown>]
const put = (id: number, before: ActivityInput, after: ActivityInput) =>
  [
    { op: 'put', timelineKey: TL, entityId: id, user: OWNER, fingerprint: fp(after), input: after, before, beforeFingerprint: fp(before) },
    { entityId: id, fingerprint: fp(after), after },
  ] as [Record<string, unknown>, Record<string, unknown>]
const del = (id: number, before: ActivityInput) =>
  [{ op: 'delete', timelineKey: TL, entityId: id, user: OWNER, before, beforeFingerprint: fp(before) }, { entityId: id }] as [
    Record<string, unknown>,
    Record<string, unknown>,
  ]

function serverOf(...activities: [number, ActivityInput][]): Map<string, ServerActivity> {
  return new Map(
    activities.map(([id, a]) => [
      activityKey(TL, id),
      { activity: { timelineKey: TL, entityId: id, ...a, isActive: undefined }, user: OWNER },
    ]),
  )
}

const kinds = (items: UndoItem[]) => items.map((i) => i.kind)

describe('planUndo: each completed write against the server now', () => {
  const before = v('before')
  const after = v('after')
  const other = v('someone else')
  const cases: {
    name: string
    run: JournalRun
    server: Map<string, ServerActivity>
    expected: UndoItem['kind'][]
    check?: (items: UndoItem[]) => void
  }[] = [
    {
      name: 'post, unchanged since → delete it',
      run: journal([post(10, after)]),
      server: serverOf([10, after]),
      expected: ['delete'],
      check: (i) => expect(i[0]).toMatchObject({ entityId: 10, currentFingerprint: fp(after) }),
    },
    {
      name: 'post, changed since → conflict, nothing written',
      run: journal([post(10, after)]),
      server: serverOf([10, other]),
      expected: ['conflict'],
    },
    { name: 'post, already gone → nothing to do', run: journal([post(10, after)]), server: serverOf(), expected: ['nothing'] },
    {
      name: 'put, unchanged since → put before back',
      run: journal([put(11, before, after)]),
      server: serverOf([11, after]),
      expected: ['restore'],
      check: (i) => expect(i[0]).toMatchObject({ entityId: 11, input: before, fingerprint: fp(before), current: after }),
    },
    {
      name: 'put, changed since → conflict',
      run: journal([put(11, before, after)]),
      server: serverOf([11, other]),
      expected: ['conflict'],
    },
    {
      name: 'put, gone since → conflict (not re-created)',
      run: journal([put(11, before, after)]),
      server: serverOf(),
      expected: ['conflict'],
    },
    {
      name: 'put, already back to before (undo ran) → nothing',
      run: journal([put(11, before, after)]),
      server: serverOf([11, before]),
      expected: ['nothing'],
    },
    {
      name: 'delete, still gone → create it again',
      run: journal([del(12, before)]),
      server: serverOf(),
      expected: ['recreate'],
      check: (i) => expect(i[0]).toMatchObject({ formerEntityId: 12, input: before, fingerprint: fp(before) }),
    },
    {
      name: 'delete, a different activity on that day → still created again',
      run: journal([del(12, before)]),
      server: serverOf([40, other]),
      expected: ['recreate'],
    },
    {
      name: 'delete, an identical activity is there again (undo ran twice) → nothing',
      run: journal([del(12, before)]),
      server: serverOf([41, before]),
      expected: ['nothing'],
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const items = planUndo({ run: c.run, server: c.server, owners })
      expect(kinds(items)).toEqual(c.expected)
      c.check?.(items)
    })
  }

  it('a put compares the server with the answer the run got, also when only the after values match (user spelled differently)', () => {
    const run = journal([
      [
        { op: 'put', timelineKey: TL, entityId: 11, user: 'ALICE', fingerprint: 'x', input: after, before, beforeFingerprint: 'y' },
        { entityId: 11, fingerprint: 'not-this', after },
      ],
    ])
    expect(kinds(planUndo({ run, server: serverOf([11, after]), owners }))).toEqual(['restore'])
  })
})

describe('planUndo: runs with several writes', () => {
  it('a row moved by the manager (created X, deleted an identical X): the copy is deleted and the original created again', () => {
    const x = v('same')
    const run = journal([post(20, x), del(5, x)])
    const items = planUndo({ run, server: serverOf([20, x]), owners })
    expect(kinds(items).sort()).toEqual(['delete', 'recreate'])
  })

  it('after that undo, planning again writes nothing (the re-created copy has a new id)', () => {
    const x = v('same')
    const run = journal([post(20, x), del(5, x)])
    const items = planUndo({ run, server: serverOf([77, x]), owners })
    expect(kinds(items)).toEqual(['nothing', 'nothing'])
  })

  it('an undo killed after restoring one activity re-creates a deleted identical one on the rerun (a touched activity is no twin)', () => {
    const x = v('x')
    const run = journal([put(11, x, v('edited')), del(12, x)])
    const items = planUndo({ run, server: serverOf([11, x]), owners })
    expect(kinds(items).sort()).toEqual(['nothing', 'recreate'])
  })

  it('two identical activities deleted, one already back: only the other is created again', () => {
    const x = v('dup')
    const run = journal([del(12, x), del(13, x)])
    expect(kinds(planUndo({ run, server: serverOf([90, x]), owners }))).toEqual(['nothing', 'recreate'])
    expect(kinds(planUndo({ run, server: serverOf([90, x], [91, x]), owners }))).toEqual(['nothing', 'nothing'])
  })

  it('one activity written twice by the run is undone once: first before against last after', () => {
    const run = journal([put(11, v('a'), v('b')), put(11, v('b'), v('c'))])
    const items = planUndo({ run, server: serverOf([11, v('c')]), owners })
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({ kind: 'restore', input: v('a') })
  })

  it('created then updated by the run → one delete; created then deleted → nothing', () => {
    expect(kinds(planUndo({ run: journal([post(30, v('a')), put(30, v('a'), v('b'))]), server: serverOf([30, v('b')]), owners }))).toEqual([
      'delete',
    ])
    expect(kinds(planUndo({ run: journal([post(31, v('a')), del(31, v('a'))]), server: serverOf(), owners }))).toEqual(['nothing'])
  })
})

describe('planUndo: what cannot be undone is said, never guessed', () => {
  it('allowed tags writes are left for a person', () => {
    const run = journal([[{ op: 'tags', tagsBefore: 'a', tagsAfter: 'b' }, {}]])
    const items = planUndo({ run, server: serverOf(), owners })
    expect(kinds(items)).toEqual(['manual'])
    expect(items[0]!.kind === 'manual' && items[0]!.reason).toContain('fingerprints')
  })

  it('a write without answer in a finished run failed: nothing to undo; in an interrupted run it is unknown: a person checks', () => {
    const intent = { op: 'post', timelineKey: TL, user: OWNER, fingerprint: fp(v('n')), input: v('n') }
    expect(kinds(planUndo({ run: journal([[intent, undefined]]), server: serverOf(), owners }))).toEqual(['nothing'])
    expect(kinds(planUndo({ run: journal([[intent, undefined]], null), server: serverOf(), owners }))).toEqual(['manual'])
    expect(kinds(planUndo({ run: journal([[intent, undefined]], 'recovered'), server: serverOf(), owners }))).toEqual(['manual'])
  })

  it('a failed attempt followed by a completed retry of the same activity counts once', () => {
    const [intent] = put(11, v('a'), v('b'))
    const run = journal([[intent, undefined], put(11, v('a'), v('b'))])
    expect(kinds(planUndo({ run, server: serverOf([11, v('b')]), owners }))).toEqual(['restore'])
  })

  it('a put or delete whose journal has no copy of the values before is left for a person', () => {
    const run = journal([
      [{ op: 'delete', timelineKey: TL, entityId: 12 }, { entityId: 12 }],
      [
        { op: 'put', timelineKey: TL, entityId: 13, user: OWNER, fingerprint: fp(v('b')), input: v('b') },
        { entityId: 13, fingerprint: fp(v('b')), after: v('b') },
      ],
    ])
    expect(kinds(planUndo({ run, server: serverOf([13, v('b')]), owners }))).toEqual(['manual', 'manual'])
  })

  it('a timeline no longer visible is left alone', () => {
    expect(kinds(planUndo({ run: journal([post(10, v('a'))]), server: serverOf([10, v('a')]), owners: new Map() }))).toEqual(['manual'])
  })
})

describe('undo of an undo', () => {
  it("the undo's own journal records (delete with before, put with before, post with after) plan back to the import's result", () => {
    const a = v('a')
    const b = v('b')
    const undoRun = journal([
      [{ op: 'delete', timelineKey: TL, entityId: 20, user: OWNER, before: b, beforeFingerprint: fp(b) }, { entityId: 20 }],
      [
        { op: 'put', timelineKey: TL, entityId: 11, user: OWNER, fingerprint: fp(a), input: a, before: b, beforeFingerprint: fp(b) },
        { entityId: 11, fingerprint: fp(a), after: a },
      ],
      [
        { op: 'post', timelineKey: TL, user: OWNER, fingerprint: fp(a), input: a },
        { entityId: 50, fingerprint: fp(a), after: a },
      ],
    ])
    const items = planUndo({ run: undoRun, server: serverOf([11, a], [50, a]), owners })
    expect(items.map((i) => [i.kind, 'input' in i ? i.input.notes : undefined]).sort()).toEqual([
      ['delete', undefined],
      ['recreate', 'b'],
      ['restore', 'b'],
    ])
  })
})

describe('read ranges around the days the run touched', () => {
  it('cover each day with a day either side, merge neighbours, with explicit offsets, chunks of at most 7 days', () => {
    const ranges = undoReadRanges('Europe/Berlin', ['2026-11-09', '2026-11-10', '2026-10-01', '2026-11-20', '2026-11-23'])
    expect(ranges[0]).toEqual({ from: '2026-09-30T00:00:00+02:00', to: '2026-10-03T00:00:00+02:00' })
    expect(ranges[1]).toEqual({ from: '2026-11-08T00:00:00+01:00', to: '2026-11-12T00:00:00+01:00' })
    // 19th..25th (7 days) merged from 20th and 23rd
    expect(ranges[2]).toEqual({ from: '2026-11-19T00:00:00+01:00', to: '2026-11-25T00:00:00+01:00' })
    for (const r of ranges) {
      const days = (parseOffsetInstant(r.to).epochSeconds - parseOffsetInstant(r.from).epochSeconds) / 86400
      expect(days).toBeLessThanOrEqual(7)
    }
    const long = undoReadRanges(
      'UTC',
      Array.from({ length: 12 }, (_, i) => `2026-01-${String(i + 1).padStart(2, '0')}`),
    )
    expect(long.length).toBe(2)
    expect(long[1]!.from).toBe('2026-01-07T00:00:00+00:00')
  })

  it('take the starts before and after the run, in the target time zone', () => {
    const run = journal([put(11, v('a', '2026-11-01T23:30:00+00:00'), v('b', '2026-11-05T10:00:00+01:00'))])
    expect([...startDatesOf(run, 'Europe/Berlin').get(TL)!].sort()).toEqual(['2026-11-02', '2026-11-05'])
  })
})

it('fingerprintFor agrees with the fingerprint of a server activity', () => {
  const s = serverOf([1, v('n')]).get(activityKey(TL, 1))!
  expect(fingerprintFor(OWNER, v('n'))).toBe(fingerprintOf(s))
})
