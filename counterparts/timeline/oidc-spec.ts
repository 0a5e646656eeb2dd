/**
 * What the reference OpenID Provider (`oidc.ts`) says beyond oidc-provider's
 * own output, so that it answers in the shape the Timeline API's cloud
 * sign-in documents (an IdentityServer): the discovery document's fields and
 * their order, the callback's `scope` and `session_state`, the granted scopes
 * in the token response, `plain` PKCE, and the check-session page.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { VendorIdentifiers } from '../../src/timeline/vendor.ts'

/** Path of the OpenID Session Management check-session page. */
export const CHECK_SESSION_PATH = '/connect/checksession'

/** Cookie that carries the OP browser state the check-session page compares (readable by its script). */
export const BROWSER_STATE_COOKIE = '_op_browser_state'

/** The scopes the login server knows, in the order its discovery lists them. */
export function specScopes(vendor: VendorIdentifiers): string[] {
  return ['openid', 'email', 'profile', vendor.scope, 'offline_access']
}

/** Claims of the `profile` scope; with `sub`, `email` and `email_verified` they are every claim the server names. */
export const PROFILE_CLAIMS = [
  'name',
  'family_name',
  'given_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'updated_at',
]

/**
 * The discovery fields whose values oidc-provider words differently or has no
 * setting for (a list's members or order, a flag, the check-session page).
 * The endpoint URLs come from the provider's routes.
 */
export function specDiscoveryFields(vendor: VendorIdentifiers, issuer: string): Record<string, unknown> {
  return {
    check_session_iframe: `${issuer}${CHECK_SESSION_PATH}`,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    scopes_supported: specScopes(vendor),
    claims_supported: ['sub', 'email', 'email_verified', ...PROFILE_CLAIMS],
    grant_types_supported: [
      'authorization_code',
      'client_credentials',
      'refresh_token',
      'implicit',
      'password',
      'urn:ietf:params:oauth:grant-type:device_code',
    ],
    response_types_supported: ['code', 'token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'],
    response_modes_supported: ['form_post', 'query', 'fragment'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    id_token_signing_alg_values_supported: ['RS256'],
    subject_types_supported: ['public'],
    code_challenge_methods_supported: ['plain', 'S256'],
    request_parameter_supported: true,
  }
}

/** Granted scopes in the server's order (`openid profile <vendor>api offline_access`), whatever order they were granted in. */
export function orderedScope(scope: Iterable<string>, vendor: VendorIdentifiers): string {
  const order = specScopes(vendor)
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length)
  return [...new Set(scope)].sort((a, b) => rank(a) - rank(b)).join(' ')
}

/**
 * `session_state` of OpenID Connect Session Management 1.0 §3:
 * hash(client_id, origin of the redirect_uri, OP browser state, salt) "." salt.
 */
export function sessionState(clientId: string, redirectUri: string, browserState: string, salt = randomBytes(8).toString('hex')): string {
  const digest = createHash('sha256')
    .update(`${clientId} ${new URL(redirectUri).origin} ${browserState} ${salt}`)
    .digest('base64url')
  return `${digest}.${salt}`
}

/** The OP browser state for a login session: derived from its id, so the id itself stays out of script reach. */
export function browserStateFor(sessionUid: string): string {
  return createHash('sha256').update(`op-browser-state ${sessionUid}`).digest('base64url')
}

/**
 * The check-session page (Session Management §4.2): an RP frame posts
 * `"<client_id> <session_state>"` and hears `unchanged`, `changed` or `error`.
 */
export const CHECK_SESSION_PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>check session</title></head><body><script>
window.addEventListener('message', async (event) => {
  const parts = typeof event.data === 'string' ? event.data.split(' ') : []
  const salt = parts.length === 2 ? parts[1].split('.')[1] : undefined
  if (salt === undefined) return event.source.postMessage('error', event.origin)
  const cookie = document.cookie.split('; ').find((pair) => pair.startsWith('${BROWSER_STATE_COOKIE}='))
  const state = cookie ? cookie.slice(${BROWSER_STATE_COOKIE.length + 1}) : ''
  const bytes = new TextEncoder().encode([parts[0], event.origin, state, salt].join(' '))
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
  const hash = btoa(String.fromCharCode(...digest)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')
  event.source.postMessage(hash + '.' + salt === parts[1] ? 'unchanged' : 'changed', event.origin)
})
</script></body></html>
`

/** The login server's error page: the OAuth error and its description, which is what a person signing in reads. */
export function errorPage(out: { error?: string; error_description?: string }): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Sign-in error</title></head><body><h1>${escape(out.error ?? 'server_error')}</h1><p>${escape(out.error_description ?? '')}</p></body></html>`
}

/**
 * An authorization request's query as oidc-provider needs it to act like the
 * login server, or undefined when it needs no change:
 * - `plain` PKCE becomes S256 of the challenge: S256(verifier) equals
 *   S256(challenge) exactly when the verifier equals the plain challenge,
 *   which is what `plain` checks;
 * - `offline_access` without a `prompt` asks for consent: the login server
 *   grants offline access on request, while oidc-provider follows OpenID
 *   Connect Core §11 and drops the scope unless consent is prompted (the
 *   auto-approving login gives it).
 */
export function authorizationQueryAsServer(query: URLSearchParams): URLSearchParams | undefined {
  const rewritten = new URLSearchParams(query)
  const challenge = query.get('code_challenge')
  if (query.get('code_challenge_method') === 'plain' && challenge !== null) {
    rewritten.set('code_challenge', createHash('sha256').update(challenge).digest('base64url'))
    rewritten.set('code_challenge_method', 'S256')
  }
  if (!query.has('prompt') && (query.get('scope') ?? '').split(' ').includes('offline_access')) rewritten.set('prompt', 'consent')
  return rewritten.toString() === query.toString() ? undefined : rewritten
}
