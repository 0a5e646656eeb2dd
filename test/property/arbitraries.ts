/**
 * Generators for property tests: cell values of every kind a spreadsheet (or
 * someone pasting into one) can produce, rows of them in any column, Keys and
 * Bases that are valid, duplicated or garbled, and a small server world those
 * Keys may or may not belong to.
 */
import fc from 'fast-check'
import { SPREADSHEET_ERRORS } from '../../src/core/cells.ts'
import { activitiesTab, validateHeader, type HeaderLayout } from '../../src/core/columns.ts'
import { fingerprintOf } from '../../src/core/plan.ts'
import { activityToCells, cellsToRow } from '../../src/core/row-write.ts'
import type { KnownUser, RowContext, ServerActivity } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import { writtenDigester } from '../../src/core/sheet-writes.ts'
import type { CellValue, TabData } from '../../src/sheets/port.ts'
import type { Activity, AllowedTags } from '../../src/timeline/model.ts'

export const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'America/Santiago',
  'Africa/Monrovia',
  'Pacific/Kiritimati',
  'UTC',
] as const

export const USERS: KnownUser[] = [
  { username: 'ACME\\anna', displayName: 'Anna Schmidt', tagsTimelineKey: 'tl-anna', teams: ['Design'] },
  { username: 'ACME\\ben', displayName: 'Ben Ito', tagsTimelineKey: 'tl-ben', teams: [] },
  { username: 'ACME\\carl', displayName: 'Carl', tagsTimelineKey: undefined },
]

/** Server activities, some ordinary and some made to look like what a sheet refuses. */
export const ACTIVITIES: Activity[] = [
  {
    timelineKey: 'tl-anna',
    entityId: 1,
    tags: ['Acme', 'Website', ':billable'],
    notes: 'Kick-off',
    start: '2026-03-02T09:00:00+01:00',
    duration: 5400,
    isActive: true,
  },
  {
    timelineKey: 'tl-anna',
    entityId: 2,
    tags: ['Internal'],
    notes: '#N/A',
    start: '2026-03-29T01:30:00+01:00',
    duration: 7200,
    isActive: true,
  },
  {
    timelineKey: 'tl-anna',
    entityId: 3,
    tags: ['=A1+1', ':#REF!'],
    notes: '=IMPORTDATA("x")',
    start: '2026-10-25T02:30:00+02:00',
    duration: 1800,
    isActive: true,
  },
  {
    timelineKey: 'tl-ben',
    entityId: 4,
    tags: ['Globex', 'Support'],
    notes: undefined,
    start: '2026-03-02T14:00:00+05:45',
    duration: 0,
    isActive: true,
  },
  {
    timelineKey: 'tl-ben',
    entityId: 5,
    tags: ['Globex'],
    notes: 'night',
    start: '2026-03-02T23:30:00+01:00',
    duration: 2 * 86_400 + 60,
    isActive: true,
  },
  {
    timelineKey: 'tl-ben',
    entityId: 6,
    tags: ['Far'],
    notes: 'last day',
    start: '2999-12-31T09:00:00+01:00',
    duration: 3600,
    isActive: true,
  },
]

export function serverOf(activities: readonly Activity[]): Map<string, ServerActivity> {
  return new Map(
    activities.map((a) => [
      activityKey(a.timelineKey, a.entityId),
      { activity: a, user: a.timelineKey === 'tl-anna' ? 'ACME\\anna' : 'ACME\\ben' },
    ]),
  )
}

/** Characters people and programs put into cells: controls, surrogate halves, RTL marks, emoji. */
const oddChar = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u007f', '\u0085', '\u00a0', '\u200b', '\u200e', '\u202e', '\ufeff', '\ufffe', '\uffff', '😀', '👩🏽‍💻', 'ß', 'İ', '\u2028'),
)

/** Any string: printable, binary (every code point), odd characters mixed in. */
export const anyString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), oddChar), maxLength: 30 }),
)

/** 40,000 to 60,000 characters of one kind: the longest a Google cell holds is 50,000. */
export const hugeString = fc
  .tuple(fc.constantFrom('x', ' ', ',', '=', '\u0000', '😀', ':a, '), fc.integer({ min: 40_000, max: 60_000 }))
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n))

/** Numbers of any size: -0, subnormals, ±1e308, NaN and infinities (a broken file), plausible serials and fractions. */
export const anyNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(
    -0,
    0,
    5e-324,
    -5e-324,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER,
    2_958_465,
    2_958_466,
    25_568,
    25_569,
    401_768,
    401_769,
    60,
    61,
    1,
    -1,
    0.99999999884,
    1 / 86_400 / 3,
    46_110,
    46_110.5,
    366,
    367,
  ),
  fc.integer({ min: -10, max: 3_000_000 }),
  fc.double({ min: 0, max: 3, noNaN: true }),
  fc.double({ min: 45_000, max: 47_000, noNaN: true }),
)

export const errorLiteral = fc.oneof(
  fc.constantFrom(...SPREADSHEET_ERRORS),
  fc.constantFrom(...SPREADSHEET_ERRORS).map((e) => ` ${e.toLowerCase()} `),
)

export const formula = fc.oneof(
  fc.constantFrom('=TODAY()', '=1/0', '=A1', '=HYPERLINK("x")', '=TRUE()', ' =SUM(1,2)'),
  anyString.map((s) => `=${s}`),
)

/** Text that means something in one column or another, so that rows get past the first check often. */
export const plausibleText = fc.constantFrom(
  '2026-03-02',
  '3/2/2026',
  '02.03.2026',
  '2026-03-29',
  '2026-10-25',
  '9999-12-31',
  '2999-12-31',
  '3000-01-01',
  '1970-01-01',
  '1969-12-31',
  '1899-12-31',
  '0001-01-01',
  '2026-02-30',
  '09:00',
  '10:30',
  '02:30',
  '24:00',
  '23:59:59',
  '1:45 PM',
  '9 AM',
  '12:00 am',
  '25:99',
  'ACME\\anna',
  'acme\\ANNA',
  'Anna Schmidt',
  'ACME\\ben',
  'ACME\\carl',
  'ACME\\zoe',
  'Acme, Website',
  'Acme, Website, :billable',
  ':billable',
  'billable',
  ' , ',
  'a,b,c,d,e,f,g,h,i,j,k',
  'TRUE',
  'FALSE',
  'x',
  'yes',
  'no',
  '✓',
  'perhaps',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
)

/** One cell of any kind. */
export const anyCell: fc.Arbitrary<CellValue> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '\t', '\n') },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 3, arbitrary: anyNumber },
  { weight: 3, arbitrary: anyString },
  { weight: 3, arbitrary: plausibleText },
  { weight: 2, arbitrary: errorLiteral },
  { weight: 1, arbitrary: formula },
  { weight: 1, arbitrary: hugeString },
)

/** Keys: of the server's activities, unknown but well-formed, garbled, or empty. */
export const anyKey: fc.Arbitrary<CellValue> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ACTIVITIES.map((a) => activityKey(a.timelineKey, a.entityId))) },
  { weight: 2, arbitrary: fc.constantFrom('tl-anna/999', 'tl-ben/0', 'tl-zoe/1', ' tl-anna/1 ', 'tl-anna/9007199254740993') },
  { weight: 2, arbitrary: fc.constantFrom(null, '') },
  { weight: 2, arbitrary: anyCell },
)

/** Bases: the fingerprint of some activity (its own or another's), garbled, or empty. */
export const anyBase: fc.Arbitrary<CellValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...ACTIVITIES.map((a) => fingerprintOf({ activity: a, user: a.timelineKey === 'tl-anna' ? 'ACME\\anna' : 'ACME\\ben' })),
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(null, 'AAAAAAAAAAA', 'garbled') },
  { weight: 2, arbitrary: anyCell },
)

/** A row as written by the tool for one of the server's activities. */
export function toolRow(a: Activity, timeZone: string): Record<string, CellValue> {
  return activityToCells(a, a.timelineKey === 'tl-anna' ? 'ACME\\anna' : 'ACME\\ben', timeZone)
}

/** A row exactly as the tool wrote it for one of the activities (before any server change). */
export function writtenRow(timeZone: string): fc.Arbitrary<Record<string, CellValue>> {
  return fc.constantFrom(...ACTIVITIES).map((a) => toolRow(a, timeZone))
}

const COLUMNS = activitiesTab().columns.map((c) => c.name)

/**
 * A row by column name: either a tool-written row with some cells replaced,
 * or cells drawn freely; Key and Base from their own generators.
 */
export function anyRow(timeZone: string): fc.Arbitrary<Record<string, CellValue>> {
  const free = fc.record(
    Object.fromEntries(COLUMNS.map((c) => [c, c === 'Key' ? anyKey : c === 'Base' ? anyBase : anyCell])) as Record<
      string,
      fc.Arbitrary<CellValue>
    >,
  )
  const edited = fc
    .tuple(fc.constantFrom(...ACTIVITIES), fc.dictionary(fc.constantFrom(...COLUMNS), anyCell, { maxKeys: 3 }))
    .map(([a, changes]) => ({ ...toolRow(a, timeZone), ...changes }))
  const fresh = fc
    .tuple(
      fc.constantFrom('ACME\\anna', 'ACME\\ben', 'Ben Ito'),
      plausibleText,
      plausibleText,
      plausibleText,
      fc.dictionary(fc.constantFrom(...COLUMNS), anyCell, { maxKeys: 2 }),
    )
    .map(
      ([User, Date, Start, End, changes]) => ({ User, Date, Start, End, Tags: 'Acme, Website', ...changes }) as Record<string, CellValue>,
    )
  return fc.oneof(free, edited, fresh)
}

/** The header in any order, with managers' own columns in between. */
export const anyLayout: fc.Arbitrary<HeaderLayout> = fc
  .tuple(
    fc.shuffledSubarray(COLUMNS, { minLength: COLUMNS.length }),
    fc.array(fc.constantFrom('Comment', 'Checked', ''), { maxLength: 3 }),
    fc.nat(),
  )
  .map(([order, extra, at]) => {
    const header: string[] = [...order]
    extra.forEach((name, i) => header.splice((at + i) % (header.length + 1), 0, name))
    const check = validateHeader(header, activitiesTab())
    if (!check.ok) throw new Error(JSON.stringify(check.problems))
    return check.layout
  })

/** Places named cells where the layout says; other columns hold anything. */
export function placeRow(cells: Record<string, CellValue>, layout: HeaderLayout, extra: CellValue = null): CellValue[] {
  const row: CellValue[] = Array.from({ length: layout.width }, () => extra)
  for (const [name, value] of Object.entries(cells)) {
    const i = layout.index[name]
    if (i !== undefined) row[i] = value
  }
  return row
}

const allowedTags: fc.Arbitrary<AllowedTags | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant<AllowedTags>({
    everyone: ['Acme, Website', 'Internal,.'],
    groups: [{ appliesTo: ['[ACME\\anna]', '{Design}'], combinations: ['Globex'] }],
  }),
  fc.array(anyString, { maxLength: 3 }).map((everyone): AllowedTags => ({ everyone, groups: [] })),
)

/** A row context: any of the zones, date orders and tag rules; server and base keys from the given world. */
export function anyContext(server: ReadonlyMap<string, ServerActivity>): fc.Arbitrary<RowContext> {
  return fc.record({
    timeZone: fc.constantFrom(...ZONES),
    slashDateOrder: fc.constantFrom('mdy' as const, 'dmy' as const),
    users: fc.constant(USERS),
    server: fc.constant(server),
    baseKeys: fc.subarray([...server.keys(), 'tl-anna/999', 'tl-ben/0']).map((keys) => new Set(keys)),
    allowedTags,
    allowedTagsSeverity: fc.constantFrom('warning' as const, 'error' as const),
    userCanAppend: fc.boolean(),
  })
}

/** Some of the server's activities (the rest deleted), with a few changed since the sheet was written. */
export const anyServer: fc.Arbitrary<Map<string, ServerActivity>> = fc
  .tuple(fc.subarray(ACTIVITIES), fc.array(fc.nat({ max: ACTIVITIES.length - 1 }), { maxLength: 3 }))
  .map(([kept, changed]) => serverOf(kept.map((a, i) => (changed.includes(i) ? { ...a, notes: `${a.notes ?? ''} (server)` } : a))))

/** A row context over some server: zone, users, Keys the state knows, allowed tags and their severity. */
export const anyRowContext: fc.Arbitrary<RowContext> = anyServer.chain((server) => anyContext(server))

/** A row context, a header layout, and what `more` draws for that context (rows in its zone, Keys of its server). */
export function withRowContext<T extends unknown[]>(
  more: (ctx: RowContext) => { [K in keyof T]: fc.Arbitrary<T[K]> },
): fc.Arbitrary<[RowContext, HeaderLayout, ...T]> {
  return anyRowContext.chain(
    (ctx) =>
      fc.tuple(fc.constant(ctx), anyLayout, ...(more(ctx) as fc.Arbitrary<unknown>[])) as unknown as fc.Arbitrary<
        [RowContext, HeaderLayout, ...T]
      >,
  )
}

/** An Activities tab holding `rows` below its header row (the header itself is read through a layout). */
export function activitiesTabOf(rows: CellValue[][]): TabData {
  return { title: 'Activities', exists: true, header: [], rows, gridRowCount: rows.length + 1 }
}

/** The digest the export keeps of a row it writes with these cells, or null (`writtenDigester`). */
export function digestOfWritten(
  cells: Readonly<Partial<Record<string, CellValue>>>,
  fingerprint: string,
  layout: HeaderLayout,
  ctx: { timeZone: string; users: KnownUser[] },
): number | null {
  return writtenDigester(layout, ctx)({ key: '', row: cellsToRow(cells, layout), fingerprint })
}
