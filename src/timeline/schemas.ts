/**
 * zod schemas for every Timeline API body the client reads. Objects are loose:
 * the real service adds fields we do not use, and a new field must never break
 * a sync. A parse failure becomes a `ResponseShapeError` that names the URL and
 * the JSON path of the first bad field.
 */
import { z } from 'zod'
import { ResponseShapeError } from '../errors.ts'
import { isPlausibleStart, START_YEARS } from './plausible-start.ts'

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/** The longest activity the tool accepts, in seconds: a year. Longer is a broken answer, not a day's work. */
export const MAX_ACTIVITY_SECONDS = 366 * 86_400

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
    // Checked below, once: a declared object schema here would copy every entity's values (an activities read
    // holds thousands) only for the refinement to read them a second time.
    // Optional: an entity of a type not checked (a folder, a type the server adds later) may come without.
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

/** Ids as the v2 sample answer lists them (strings) or as numbers. */
const DeletedIds = z
  .array(z.union([z.number().int(), z.string().regex(/^-?\d+$/, 'an integer id')]).transform(Number))
  .nullable()
  .optional()

/**
 * Activities read (full or incremental): a timeline with its entities, and the deletion lists of the only
 * official sample of an incremental answer (v2): activities, groups, groupLists and folders.
 */
export const ActivitiesResponseSchema = TimelineSchema.extend({
  entities: z.array(EntitySchema),
  deletedActivityIds: DeletedIds,
  deletedGroupIds: DeletedIds,
  deletedGroupListIds: DeletedIds,
  deletedFolderIds: DeletedIds,
})

export type ActivitiesResponseJson = z.infer<typeof ActivitiesResponseSchema>

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
