/**
 * zod schemas for every Timeline API body the client reads. Objects are loose:
 * the real service adds fields we do not use, and a new field must never break
 * a sync. A parse failure becomes a `ResponseShapeError` that names the URL and
 * the JSON path of the first bad field.
 */
import { z } from 'zod'
import { ResponseShapeError } from '../errors.ts'

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/** Activity starts the tool accepts: no one tracks time outside these years, and a sheet cannot show much beyond them. */
const START_YEARS = { earliest: 1970, latest: 2999 }
/** The longest activity the tool accepts, in seconds: a year. Longer is a broken answer, not a day's work. */
export const MAX_ACTIVITY_SECONDS = 366 * 86_400

/** True for a date-time that exists on the calendar (no 13th month, no 30 February) within `START_YEARS`. */
export function isPlausibleStart(text: string): boolean {
  // The form servers send, `2026-03-29T01:30:00+01:00` or `…Z`, read by hand: every activity of an answer has one.
  return plainStartIsPlausible(text) ?? isPlausibleStartByPattern(text)
}

/** `isPlausibleStart` by its pattern alone, for any text: what the hand-read form is held to. */
export function isPlausibleStartByPattern(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))$/.exec(text)
  if (!m) return false
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = m.slice(1).map((part) => Number(part ?? 0)) as number[]
  if (year! < START_YEARS.earliest || year! > START_YEARS.latest || month! < 1 || month! > 12) return false
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  return day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 14 && offsetMinutes! <= 59
}

/**
 * `isPlausibleStart` for `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `±HH:MM`; undefined for any other text (the pattern
 * decides). test/property/time-shortcuts.test.ts holds it to `isPlausibleStartByPattern`.
 */
function plainStartIsPlausible(text: string): boolean | undefined {
  const length = text.length
  if (length !== 20 && length !== 25) return undefined
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return undefined
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined
  const year = digits(text, 0, 4)
  const month = digits(text, 5, 2)
  const day = digits(text, 8, 2)
  const hour = digits(text, 11, 2)
  const minute = digits(text, 14, 2)
  const second = digits(text, 17, 2)
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined
  if (length === 20) {
    if (text.charCodeAt(19) !== 90) return undefined
  } else {
    const sign = text.charCodeAt(19)
    if ((sign !== 43 && sign !== 45) || text.charCodeAt(22) !== 58) return undefined
    const offsetHours = digits(text, 20, 2)
    const offsetMinutes = digits(text, 23, 2)
    if (offsetHours < 0 || offsetMinutes < 0) return undefined
    if (offsetHours > 14 || offsetMinutes > 59) return false
  }
  if (year < START_YEARS.earliest || year > START_YEARS.latest || month < 1 || month > 12) return false
  return day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 59
}

/** The number `count` ASCII digits at `at` spell, or −1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1]!
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
}

/** A link's href, absolute or relative, without a user name or password (it would go into logs and messages). */
const Href = z
  .string()
  .min(1)
  .refine((href) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(href), {
    message: 'must not hold a user name or password (the link is not shown)',
    params: { described: true },
  })

export const LinkSchema = z.looseObject({
  rel: z.string(),
  href: Href,
})

const Links = z.array(LinkSchema)

/** `{links}` of the home resource. */
export const HomeSchema = z.looseObject({ links: Links })

/** Body of the on-premise 401 challenge: one link, rel `<vendor>/token`. */
export const TokenLinkBodySchema = z.looseObject({ links: Links })

/** On-premise token endpoint answer. */
export const OnPremTokenSchema = z.looseObject({ token: z.string().min(1) })

/** Cloud profile: `serverUrl` is the base for data calls; its links carry `url`, not `href`. */
export const CloudProfileSchema = z.looseObject({
  serverUrl: z
    .string()
    .url()
    .refine((url) => url.endsWith('/'), 'a URL ending with a slash'),
  license: z.string().optional(),
  links: z.array(z.looseObject({ rel: z.string(), url: z.string() })).optional(),
})

const ActivityValuesSchema = z.looseObject({
  groupListId: z.number().int().optional(),
  groupId: z.number().int().optional(),
  isActive: z.boolean().optional(),
  name: z.string().optional(),
  notes: z.string().nullable().optional(),
  timeInterval: z.looseObject({
    start: z
      .string()
      .regex(ISO_WITH_OFFSET, 'an ISO 8601 date-time with an offset')
      .refine(isPlausibleStart, `a real date and time between ${START_YEARS.earliest} and ${START_YEARS.latest}`),
    duration: z.number().int().nonnegative().max(MAX_ACTIVITY_SECONDS, `expected at most a year (${MAX_ACTIVITY_SECONDS} seconds)`),
  }),
})

const GroupListValuesSchema = z.looseObject({ groupIds: z.array(z.number().int()) })

const GroupValuesSchema = z.looseObject({
  key: z.string().optional(),
  name: z.string().optional(),
  color: z.string().optional(),
  skipColor: z.boolean().optional(),
})

// A Map, not an object: an entity type a server names `constructor` or `toString` must find no schema, not Object's.
const VALUES_BY_TYPE: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ['activity', ActivityValuesSchema],
  ['groupList', GroupListValuesSchema],
  ['group', GroupValuesSchema],
])

/**
 * One entity. Activity, groupList and group values are checked; other entity
 * types (folders, types the server adds later) pass with any values.
 */
export const EntitySchema = z
  .looseObject({
    entityType: z.string(),
    entityId: z.number().int(),
    // Checked below, once: a declared object schema here copied every entity's values (an activities read holds
    // thousands) only for the refinement to read them a second time, about half of reading a big answer.
    // Optional, as before: an entity of a type not checked (a folder, a type the server adds later) may come without.
    values: z.unknown().optional(),
  })
  .superRefine((entity, ctx) => {
    const values = entity.values
    if (values !== undefined && (typeof values !== 'object' || values === null || Array.isArray(values))) {
      ctx.addIssue({ code: 'custom', message: `expected object, got ${typeName(values)}`, path: ['values'], params: { described: true } })
      return
    }
    const schema = VALUES_BY_TYPE.get(entity.entityType)
    if (!schema) return
    const result = schema.safeParse(values)
    if (result.success) return
    for (const issue of result.error.issues) {
      ctx.addIssue({
        code: 'custom',
        message: describeIssue(issue, entity.values),
        path: ['values', ...issue.path],
        params: { described: true },
      })
    }
  })

/**
 * True only for an entity `EntitySchema` accepts as it is: an activity, group or group list of the usual shape, or
 * an entity of a type not checked. False is no verdict: the schema decides. An activities answer holds thousands
 * of entities, and zod copied and checked each one field by field, about a tenth of a 100k-activity first export;
 * test/property/entity-schema.test.ts holds this check to the schema's verdict.
 */
export function isAcceptedEntity(entity: unknown): boolean {
  if (!isRecord(entity) || typeof entity['entityType'] !== 'string' || !Number.isSafeInteger(entity['entityId'])) return false
  const values = entity['values']
  if (values !== undefined && !isRecord(values)) return false
  switch (entity['entityType']) {
    case 'activity':
      return values !== undefined && isActivityValues(values)
    case 'groupList':
      return values !== undefined && isIdList(values['groupIds'])
    case 'group':
      return (
        values !== undefined &&
        optional(values['key'], isString) &&
        optional(values['name'], isString) &&
        optional(values['color'], isString) &&
        optional(values['skipColor'], isBoolean)
      )
    default:
      // The types the schema checks are the cases above: any other passes with any values, or none.
      return true
  }
}

function isActivityValues(values: Record<string, unknown>): boolean {
  const interval = values['timeInterval']
  if (!isRecord(interval)) return false
  const { start, duration } = interval
  return (
    optional(values['groupListId'], Number.isSafeInteger) &&
    optional(values['groupId'], Number.isSafeInteger) &&
    optional(values['isActive'], isBoolean) &&
    optional(values['name'], isString) &&
    (values['notes'] === null || optional(values['notes'], isString)) &&
    // isPlausibleStart reads the same form ISO_WITH_OFFSET checks, so it answers for both.
    typeof start === 'string' &&
    isPlausibleStart(start) &&
    Number.isSafeInteger(duration) &&
    (duration as number) >= 0 &&
    (duration as number) <= MAX_ACTIVITY_SECONDS
  )
}

/** Every index, holes too (`every` would skip a hole, which the schema reads as undefined and refuses). */
function isIdList(value: unknown): boolean {
  if (!Array.isArray(value)) return false
  for (let i = 0; i < value.length; i++) if (!Number.isSafeInteger(value[i])) return false
  return true
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value)
}

const isString = (value: unknown): boolean => typeof value === 'string'
const isBoolean = (value: unknown): boolean => typeof value === 'boolean'

export type EntityJson = z.infer<typeof EntitySchema>
export type ActivityValuesJson = z.infer<typeof ActivityValuesSchema>

const ChangeId = z.string().nullable().optional()

/** A timeline as listed (no entities) or as the frame of an activities response. */
export const TimelineSchema = z.looseObject({
  timelineKey: z.string().min(1),
  owner: z.looseObject({ username: z.string(), displayName: z.string().optional() }),
  schema: z.looseObject({
    name: z.string(),
    version: z.string().optional(),
    baseSchema: z.looseObject({ name: z.string(), version: z.string().optional() }).optional(),
  }),
  lastChangeId: ChangeId,
  timestamp: ChangeId,
  // Only shown to an operator (why an export found nothing): a value that is not a date is dropped, not refused.
  lastUpdate: z
    .looseObject({ updatedUtcTime: z.iso.datetime({ offset: true, local: false }).optional().catch(undefined) })
    .nullable()
    .optional()
    .catch(undefined),
  links: Links.optional(),
  entities: z.array(EntitySchema).optional(),
})

export type TimelineJson = z.infer<typeof TimelineSchema>

export const TimelinesListSchema = z.looseObject({ timelines: z.array(TimelineSchema) })

/** Activities read (full or incremental): a timeline with its entities; v2-style deletion lists tolerated. */
export const ActivitiesResponseSchema = TimelineSchema.extend({
  entities: z.array(EntitySchema),
  deletedActivityIds: z
    .array(z.union([z.number().int(), z.string().regex(/^-?\d+$/, 'an integer id')]).transform(Number))
    .nullable()
    .optional(),
})

/** `ActivitiesResponseSchema` with its entities left for `isAcceptedEntity`. */
const ActivitiesFrameSchema = ActivitiesResponseSchema.extend({ entities: z.array(z.unknown()) })

export type ActivitiesResponseJson = z.infer<typeof ActivitiesResponseSchema>

/**
 * `parseBody(ActivitiesResponseSchema, …)`, the same answer or the same refusal, with the entities checked by
 * `isAcceptedEntity`; the whole answer goes through the schema when one of them is not, so a refusal still names
 * the first bad field as the schema sees it.
 */
export function parseActivitiesBody(data: unknown, url: string): ActivitiesResponseJson {
  const frame = ActivitiesFrameSchema.safeParse(data)
  if (frame.success && frame.data.entities.every(isAcceptedEntity)) return frame.data as ActivitiesResponseJson
  return parseBody(ActivitiesResponseSchema, data, url)
}

/** Create, update and delete answer with the timeline frame and the entities written (none after a delete). */
export const WriteResponseSchema = TimelineSchema.extend({ entities: z.array(EntitySchema) })

export const TagCombinationListSchema = z.looseObject({
  tagCombinations: z.array(z.string()),
  links: Links.optional(),
})

/** Error bodies: the reference server sends `{errorCode, message}`; OAuth endpoints `{error, error_description}`. */
export const ErrorBodySchema = z.looseObject({
  errorCode: z.string().optional(),
  message: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
})

/** Renders a zod path as `timelines[0].owner.username`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? String(part) : `.${String(part)}`
  }
  return out === '' ? '(body)' : out
}

/**
 * Parses `data` with `schema`, or throws a `ResponseShapeError` naming `url`
 * and the path of the first bad field.
 */
export function parseBody<S extends z.ZodType>(schema: S, data: unknown, url: string): z.infer<S> {
  const result = schema.safeParse(data)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  if (!issue) throw new ResponseShapeError(url, '(body)', 'is invalid')
  throw new ResponseShapeError(url, jsonPath(issue.path), describeIssue(issue, data))
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown): string {
  const received = valueAt(data, issue.path)
  const got = received === undefined ? 'missing' : `got ${typeName(received)}`
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}, ${got}`
    case 'invalid_format':
      return `expected ${issue.format === 'regex' ? issue.message : issue.format}, got ${JSON.stringify(received)}`
    case 'custom':
      if (issue.params?.['described'] === true) return issue.message
      return `expected ${issue.message}, got ${JSON.stringify(received)}`
    default:
      return `${issue.message.replace(/^Too (small|big): /, '')}, got ${JSON.stringify(received)}`
  }
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return current
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
