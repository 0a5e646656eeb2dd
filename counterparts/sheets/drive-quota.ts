/**
 * Drive's own per-minute quota, which files.get spends instead of the Sheets quota, as Drive's "Usage limits"
 * page gives it: "Read items, such as `files.get` | 5" quota units; "Per minute per user per project | 325,000
 * quota units" and "Per minute per project | 1,000,000 quota units". Both windows refill on each clock minute, as
 * the Sheets ones do [I]; a refused call spends nothing [I].
 *
 * The same page: "As of May 1, 2026… projects that made any use of this API between November 2025 and April
 * 2026 will continue with their previously set usage quotas". The defaults are a new project's; an older
 * project's limits may be others, which the options set.
 *
 * Past the per-user limit Drive answers as its "Resolve errors" guide says: "If you exceed a quota, you'll
 * receive a 403: User rate limit exceeded". Past the per-project limit the fake answers 429 RESOURCE_EXHAUSTED in
 * the shape of the Sheets quota body (reference/sheets-api.md §7.3) for Drive's service, with Drive's `errors[]`
 * entry `rateLimitExceeded` beside it; Drive's metric and limit names are not published [I].
 */
import { jsonResponse } from './google-errors.ts'

/** Quota units one files.get costs ("Read items, such as `files.get` | 5"). */
export const FILES_GET_UNITS = 5

/** Drive's per-minute limits, in quota units. */
export interface DriveQuotaOptions {
  /** "Per minute per user per project | 325,000 quota units". @default 325_000 */
  unitsPerUser?: number
  /** "Per minute per project | 1,000,000 quota units". @default 1_000_000 */
  unitsPerProject?: number
}

/** A new project's Drive limits. */
export const GOOGLE_DRIVE_QUOTA: Required<DriveQuotaOptions> = { unitsPerUser: 325_000, unitsPerProject: 1_000_000 }

/** Which limit a call would pass, and its value. */
export interface DriveQuotaRefusal {
  scope: 'user' | 'project'
  limit: number
}

export interface DriveQuota {
  /** Spends `units` for `user` in this clock minute; the refusal when either limit has too few left (nothing spent then). */
  take(user: string, units: number): DriveQuotaRefusal | undefined
}

/** The per-user and per-project windows of one store; `false` never refuses. */
export function createDriveQuota(limits: Required<DriveQuotaOptions> | false, now: () => number): DriveQuota {
  // Units spent by `u|<user>|<minute>` and `p|<minute>`.
  const spent = new Map<string, number>()
  return {
    take(user, units) {
      if (limits === false) return undefined
      const minute = Math.floor(now() / 60_000)
      const userKey = `u|${user}|${minute}`
      const projectKey = `p|${minute}`
      const byUser = spent.get(userKey) ?? 0
      const byProject = spent.get(projectKey) ?? 0
      if (byUser + units > limits.unitsPerUser) return { scope: 'user', limit: limits.unitsPerUser }
      if (byProject + units > limits.unitsPerProject) return { scope: 'project', limit: limits.unitsPerProject }
      spent.set(userKey, byUser + units)
      spent.set(projectKey, byProject + units)
      // Old windows are never read again; drop them so a long watch stays small.
      for (const key of spent.keys()) if (!key.endsWith(`|${minute}`)) spent.delete(key)
      return undefined
    },
  }
}

/** Drive's answer to a call past a limit: 403 per user, 429 per project (above). */
export function driveQuotaExceeded(refusal: DriveQuotaRefusal, projectNumber: string): Response {
  if (refusal.scope === 'user') {
    const message = 'User rate limit exceeded.'
    return jsonResponse(
      { error: { code: 403, message, errors: [{ message, domain: 'usageLimits', reason: 'userRateLimitExceeded' }] } },
      403,
    )
  }
  const message = `Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'drive.googleapis.com' for consumer 'project_number:${projectNumber}'.`
  return jsonResponse(
    {
      error: {
        code: 429,
        message,
        errors: [{ message, domain: 'usageLimits', reason: 'rateLimitExceeded' }],
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMIT_EXCEEDED',
            domain: 'googleapis.com',
            metadata: {
              quota_limit_value: String(refusal.limit),
              service: 'drive.googleapis.com',
              consumer: `projects/${projectNumber}`,
              quota_unit: '1/min/{project}',
              quota_location: 'global',
              quota_metric: 'drive.googleapis.com/default',
              quota_limit: 'defaultPerMinutePerProject',
            },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.Help',
            links: [{ description: 'Request a higher quota limit.', url: 'https://cloud.google.com/docs/quotas/help/request_increase' }],
          },
        ],
      },
    },
    429,
  )
}
