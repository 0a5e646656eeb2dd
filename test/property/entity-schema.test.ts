/**
 * An entity's `values` are checked once, by the refinement that knows the entity's type, instead of being
 * copied by an object schema first (that copy would be half of reading a big activities answer). The answer to any
 * entity must stay what it was: accepted alike, and refused with the same first path and message. The
 * reference is the former outer schema (`values` an optional object), then the same refinement.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ResponseShapeError } from '../../src/errors.ts'
import { isAcceptedEntity, parseActivitiesBody } from '../../src/timeline/activities-body.ts'
import { ActivitiesResponseSchema, EntitySchema, parseBody } from '../../src/timeline/schemas.ts'

const FormerOuter = z.looseObject({ entityType: z.string(), entityId: z.number().int(), values: z.looseObject({}).optional() })
const url = 'https://timeline.example/api/timelines/tl/activities'

/** What parseBody made of it: the entity's value on success, the message on a refusal. */
function verdict(schema: z.ZodType, data: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: parseBody(schema, data, url) }
  } catch (error) {
    if (!(error instanceof ResponseShapeError)) throw error
    return { ok: false, message: error.message }
  }
}

function formerVerdict(data: unknown) {
  const outer = verdict(FormerOuter, data)
  return outer.ok ? verdict(EntitySchema, data) : outer
}

const start = fc.oneof(
  fc.constantFrom('2026-01-05T09:15:00+01:00', '2026-01-05T09:15:00Z', '2026-02-30T09:15:00Z', '9999-01-01T00:00:00Z', '2026-01-05'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
)
const activityValues = fc.record(
  {
    groupListId: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 3 }), fc.constant(null)),
    groupId: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
    isActive: fc.oneof(fc.boolean(), fc.constant('yes')),
    name: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)),
    notes: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null), fc.integer()),
    timeInterval: fc.oneof(
      fc.record(
        { start, duration: fc.oneof(fc.integer({ min: -5, max: 40_000_000 }), fc.double(), fc.string({ maxLength: 3 })) },
        { requiredKeys: [] },
      ),
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.array(fc.integer(), { maxLength: 2 }),
    ),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
)
const values = fc.oneof(
  activityValues,
  fc.record(
    {
      groupIds: fc.oneof(fc.array(fc.integer(), { maxLength: 3 }), fc.array(fc.jsonValue({ maxDepth: 0 }), { maxLength: 3 }), fc.integer()),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { key: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), name: fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null)) },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(undefined),
)
const entity = fc.record(
  {
    entityType: fc.oneof(
      fc.constantFrom('activity', 'group', 'groupList', 'folder', 'constructor', 'toString', '__proto__'),
      fc.string({ maxLength: 5 }),
      fc.integer(),
    ),
    entityId: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 3 })),
    values,
    links: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['entityType', 'entityId'] },
)

describe('entity values checked once', () => {
  it('any entity is accepted or refused as the former schema did, with the same first path and message', () => {
    fc.assert(
      fc.property(fc.oneof(entity, fc.jsonValue({ maxDepth: 2 })), (data) => {
        const now = verdict(EntitySchema, data)
        const before = formerVerdict(data)
        expect(now.ok).toBe(before.ok)
        if (!now.ok && !before.ok) expect(now.message).toBe(before.message)
        // What the client reads of an accepted entity is its values, as they came.
        if (now.ok) expect((now.value as { values?: unknown }).values).toEqual((data as { values?: unknown }).values)
      }),
      { numRuns: 5_000 },
    )
  })

  it('an entity type named like a property every object has (constructor, toString) is an unknown type: accepted, not a crash', () => {
    for (const entityType of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(verdict(EntitySchema, { entityType, entityId: 1, values: { anything: 1 } })).toEqual({
        ok: true,
        value: { entityType, entityId: 1, values: { anything: 1 } },
      })
    }
  })

  it('an entity of a type not checked may come without values, as before; an activity may not', () => {
    for (const entityType of ['folder', 'somethingNew', '']) {
      expect(verdict(EntitySchema, { entityType, entityId: 3 })).toEqual({ ok: true, value: { entityType, entityId: 3 } })
    }
    expect(verdict(EntitySchema, { entityType: 'activity', entityId: 3 })).toEqual({
      ok: false,
      message: expect.stringContaining('values'),
    })
  })

  it('values that are not an object are refused at `values`, as before', () => {
    for (const values of [null, [], [1], 'x', 3, true]) {
      const now = verdict(EntitySchema, { entityType: 'activity', entityId: 1, values })
      expect(now).toEqual({ ok: false, message: expect.stringContaining('values') })
      expect(now).toEqual(formerVerdict({ entityType: 'activity', entityId: 1, values }))
    }
  })
})

/**
 * An activities answer's entities are checked by hand (`isAcceptedEntity`), and by the schema only when
 * that check does not vouch for one. The hand check may only ever say yes where the schema does, and the answer
 * read must be the schema's, to the last field and the last refusal message.
 */
describe('entities checked by hand, held to the schema', () => {
  const wellFormed = fc.oneof(
    fc.record({
      entityType: fc.constant('activity'),
      entityId: fc.integer(),
      values: fc.record(
        {
          groupListId: fc.integer(),
          groupId: fc.integer(),
          isActive: fc.boolean(),
          name: fc.string({ maxLength: 8 }),
          notes: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
          timeInterval: fc.record({
            start: fc.constantFrom(
              '2026-01-05T09:15:00+01:00',
              '2026-01-05T09:15:00Z',
              '2026-03-29T01:30:00.5-05:30',
              '1970-01-01T00:00:00+0000',
            ),
            duration: fc.integer({ min: 0, max: 366 * 86_400 }),
          }),
          extra: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: ['timeInterval'] },
      ),
    }),
    fc.record({
      entityType: fc.constant('groupList'),
      entityId: fc.integer(),
      values: fc.record({ groupIds: fc.array(fc.integer(), { maxLength: 4 }) }),
    }),
    fc.record({
      entityType: fc.constant('group'),
      entityId: fc.integer(),
      values: fc.record(
        {
          key: fc.string({ maxLength: 4 }),
          name: fc.string({ maxLength: 4 }),
          color: fc.string({ maxLength: 6 }),
          skipColor: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      entityType: fc.constantFrom('folder', 'constructor', 'x'),
      entityId: fc.integer(),
      values: fc.option(fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })), { nil: undefined }),
    }),
  )
  /** A well-formed entity with one field set to something else, or taken away: where a hand check goes wrong. */
  const PATHS = [
    ['entityType'],
    ['entityId'],
    ['values'],
    ['values', 'groupListId'],
    ['values', 'groupId'],
    ['values', 'isActive'],
    ['values', 'name'],
    ['values', 'notes'],
    ['values', 'timeInterval'],
    ['values', 'timeInterval', 'start'],
    ['values', 'timeInterval', 'duration'],
    ['values', 'groupIds'],
    ['values', 'groupIds', 0],
    ['values', 'key'],
    ['values', 'color'],
    ['values', 'skipColor'],
  ] as const
  const GONE = Symbol('gone')
  const OTHER = [
    GONE,
    undefined,
    null,
    '',
    'x',
    0,
    -1,
    1.5,
    2 ** 53,
    366 * 86_400 + 1,
    Number.NaN,
    true,
    [],
    {},
    '2026-02-30T09:15:00Z',
    '9999-01-01T00:00:00Z',
    '2026-01-05T24:00:00Z',
    '2026-01-05',
    'activity',
    'group',
  ]
  const nearlyWellFormed = fc.tuple(wellFormed, fc.constantFrom(...PATHS), fc.constantFrom(...OTHER)).map(([entity, path, value]) => {
    const copy = structuredClone(entity) as Record<PropertyKey, unknown>
    let at: Record<PropertyKey, unknown> = copy
    for (const step of path.slice(0, -1)) {
      if (typeof at[step] !== 'object' || at[step] === null) at[step] = {}
      at = at[step] as Record<PropertyKey, unknown>
    }
    const last = path[path.length - 1]!
    if (value === GONE) delete at[last]
    else at[last] = structuredClone(value)
    return copy
  })
  const anyEntity = fc.oneof(
    wellFormed,
    nearlyWellFormed,
    entity,
    fc.jsonValue({ maxDepth: 2 }),
    fc.record({
      entityType: fc.constant('activity'),
      entityId: fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1e21, -0, 0.5),
      values: activityValues,
    }),
  )
  const frame = {
    timelineKey: 'tl-1',
    owner: { username: 'alice' },
    schema: { name: 'ManicTime/Tags' },
    lastChangeId: '7',
    links: [{ rel: 'manictime/updatedactivities', href: '/api/timelines/tl-1/activities?fromTime=x' }],
  }
  const anyBody = fc.oneof(
    fc.array(anyEntity, { maxLength: 6 }).map((entities) => ({ ...frame, entities })),
    fc
      .tuple(fc.array(wellFormed, { maxLength: 4 }), nearlyWellFormed)
      .map(([entities, odd]) => ({ ...frame, entities: [...entities, odd] })),
    fc.array(wellFormed, { maxLength: 6 }).map((entities) => ({ ...frame, entities, deletedActivityIds: ['4', 5] })),
    fc.record({ timelineKey: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), entities: fc.array(wellFormed, { maxLength: 2 }) }),
    fc.jsonValue({ maxDepth: 2 }),
  )

  it('says yes only where the schema accepts, and to every well-formed activity, group and group list', () => {
    fc.assert(
      fc.property(anyEntity, (data) => {
        if (isAcceptedEntity(data)) expect(verdict(EntitySchema, data).ok).toBe(true)
      }),
      { numRuns: 5_000 },
    )
    fc.assert(
      fc.property(wellFormed, (data) => {
        expect(isAcceptedEntity(data)).toBe(true)
      }),
      { numRuns: 1_000 },
    )
    // One field off: the cases a hand check gets wrong, each path and value many times over.
    fc.assert(
      fc.property(nearlyWellFormed, (data) => {
        if (isAcceptedEntity(data)) expect(verdict(EntitySchema, data).ok).toBe(true)
      }),
      { numRuns: 20_000 },
    )
  })

  it('an activities answer reads as the schema reads it: the same value, or the same refusal', () => {
    fc.assert(
      fc.property(anyBody, (data) => {
        const quick = verdictOf(() => parseActivitiesBody(data, url))
        const schema = verdict(ActivitiesResponseSchema, data)
        expect(quick).toEqual(schema)
      }),
      { numRuns: 3_000 },
    )
  })
})

function verdictOf(read: () => unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: read() }
  } catch (error) {
    if (!(error instanceof ResponseShapeError)) throw error
    return { ok: false, message: error.message }
  }
}
