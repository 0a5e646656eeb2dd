/**
 * A Google metadata server as one Web handler: the paths google-auth-library's `Compute` client and
 * gcp-metadata's detection ask for (`/computeMetadata/v1/instance`, the attached service account's `token`,
 * `email` and `scopes`, `project/project-id`, `universe/universe-domain`), each answer carrying
 * `Metadata-Flavor: Google` (gcp-metadata refuses an answer without it), and the refusals: no
 * `Metadata-Flavor: Google` on the request → 403, no service account attached or an unknown path → 404, and
 * injected faults (`store.fail`). Mounted in msw or on loopback, reached through `GCE_METADATA_HOST`.
 */
import type { WebHandler } from '../mount.ts'
import type { AttachedServiceAccount, MetadataStore } from './store.ts'

const BASE = '/computeMetadata/v1/'
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform'

function answer(status: number, body: string, type = 'application/text'): Response {
  return new Response(body, { status, headers: { 'metadata-flavor': 'Google', 'content-type': type, server: 'Metadata Server for VM' } })
}

const notFound = (path: string) => answer(404, `The requested URL ${path} was not found on this server.`, 'text/html; charset=UTF-8')

/** Creates the handler over a store (`createMetadataStore`). */
export function createMetadataHandler(store: MetadataStore): WebHandler {
  return async (request) => {
    const url = new URL(request.url)
    const flavor = request.headers.get('metadata-flavor')
    const response = respond(store, request, url, flavor)
    store.record({ path: url.pathname, query: url.search, flavor, status: response.status })
    return response
  }
}

function respond(store: MetadataStore, request: Request, url: URL, flavor: string | null): Response {
  const path = url.pathname
  if (!path.startsWith(BASE) && path !== BASE.slice(0, -1)) return notFound(path)
  // The header is what keeps a request a program made on purpose apart from one a redirect or a forged link made.
  if (flavor !== 'Google') {
    return answer(
      403,
      `Your client does not have permission to get URL ${path} from this server. Missing Metadata-Flavor:Google header.`,
      'text/html; charset=UTF-8',
    )
  }
  // A proxy in between adds X-Forwarded-For; the server refuses what came through one.
  if (request.headers.has('x-forwarded-for')) return answer(403, 'Request contains X-Forwarded-For header.', 'text/html; charset=UTF-8')
  if (request.method !== 'GET') return answer(405, 'Method not allowed.', 'text/html; charset=UTF-8')
  const fault = store.takeFault(path)
  if (fault) return answer(fault.status, fault.body ?? `injected ${fault.status}`, 'text/html; charset=UTF-8')
  const key = path.slice(BASE.length).replace(/\/$/, '')
  const account = store.serviceAccount
  switch (key) {
    case 'instance':
      return answer(200, ['attributes/', 'hostname', 'id', 'service-accounts/', 'zone', ''].join('\n'))
    case 'project/project-id':
      return answer(200, store.projectId)
    case 'project/numeric-project-id':
      return answer(200, String(store.numericProjectId))
    case 'universe/universe-domain':
      return answer(200, 'googleapis.com')
    case 'instance/service-accounts':
      return answer(200, account ? `default/\n${account.email}/\n` : '')
  }
  const named = /^instance\/service-accounts\/([^/]+)\/(email|scopes|token|aliases)$/.exec(key)
  if (!named || !account || (named[1] !== 'default' && named[1] !== account.email)) return notFound(path)
  const scopes = account.scopes ?? [CLOUD_PLATFORM]
  switch (named[2]) {
    case 'email':
      return answer(200, account.email)
    case 'aliases':
      return answer(200, 'default')
    case 'scopes':
      return answer(200, `${scopes.join('\n')}\n`)
    default:
      return token(store, account, scopes, url.searchParams.get('scopes'))
  }
}

function token(store: MetadataStore, account: AttachedServiceAccount, scopes: string[], asked: string | null): Response {
  const requested = asked
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const granted = requested && requested.length > 0 && account.honoursRequestedScopes !== false ? requested : scopes
  const minted = store.mint(account.email, granted)
  store.noteIssued(minted.accessToken)
  return answer(
    200,
    JSON.stringify({ access_token: minted.accessToken, expires_in: minted.expiresIn, token_type: 'Bearer' }),
    'application/json',
  )
}
