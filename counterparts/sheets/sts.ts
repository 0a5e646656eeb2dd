/**
 * Google's Security Token Service token exchange (RFC 8693, `POST https://sts.googleapis.com/v1/token`) as the
 * fake answers it, for workload identity federation: an external account's credential configuration names a
 * `token_url`, an `audience` (the pool's provider) and where its subject token comes from; google-auth-library
 * posts the subject token there and calls the API with the access token that comes back. A pool the test
 * registers says which subject tokens its provider accepts and for whom; the token the exchange issues is one
 * the fake's Sheets API accepts. Service-account impersonation (`service_account_impersonation_url`) is not
 * served.
 */

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
const SUBJECT_TOKEN_TYPES = new Set([
  'urn:ietf:params:oauth:token-type:jwt',
  'urn:ietf:params:oauth:token-type:id_token',
  'urn:ietf:params:aws:token-type:aws4_request',
  'urn:ietf:params:oauth:token-type:saml2',
])

/** A workload identity pool provider: who each subject token it accepts stands for. */
export interface WorkloadPoolSpec {
  /** The provider's audience, `//iam.googleapis.com/projects/<n>/locations/global/workloadIdentityPools/<pool>/providers/<p>`. */
  audience: string
  /** Subject token → the federated principal the access token is for. */
  subjects: Record<string, string>
}

export type OAuthFailure = (status: number, error: string, description: string) => Response

/** The exchange over the fake's token issuer. */
export function createTokenExchange(issue: (subject: string, scopes: string[]) => string) {
  const pools = new Map<string, Record<string, string>>()
  return {
    register(spec: WorkloadPoolSpec): void {
      pools.set(spec.audience, { ...pools.get(spec.audience), ...spec.subjects })
    },
    exchange(form: Record<string, string>, fail: OAuthFailure): Response {
      if (form.requested_token_type !== ACCESS_TOKEN_TYPE) {
        return fail(400, 'invalid_request', 'Invalid value for "requested_token_type".')
      }
      if (!SUBJECT_TOKEN_TYPES.has(form.subject_token_type ?? '')) {
        return fail(400, 'invalid_request', 'Invalid value for "subject_token_type".')
      }
      const subjects = pools.get(form.audience ?? '')
      if (!subjects) {
        return fail(
          400,
          'invalid_target',
          'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.',
        )
      }
      const subject = subjects[form.subject_token ?? '']
      if (subject === undefined) return fail(400, 'invalid_grant', 'The subject token is not valid for this provider.')
      const scopes = (form.scope ?? '').split(' ').filter(Boolean)
      if (scopes.length === 0) return fail(400, 'invalid_scope', 'The "scope" parameter is required.')
      const body = { access_token: issue(subject, scopes), issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: 3599 }
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json; charset=UTF-8' } })
    },
  }
}
