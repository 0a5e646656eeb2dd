/**
 * One interface for every way of signing in to the Timeline service:
 * on-premise password flow, cloud OpenID Connect, on-premise Windows (NTLM).
 * The client never sees credentials; it hands each request to `send`.
 */

export interface SignIn {
  /** `password`, `cloud` or `ntlm`, for messages. */
  readonly mode: 'password' | 'cloud' | 'ntlm' | 'none'
  /**
   * The account signing in, where the configuration names it (password, NTLM). A cloud account is told
   * apart by its entry URL: the profile names each account's own server.
   */
  readonly account?: string
  /**
   * The entry URL of the data API (the home resource): `{base_url}/api` on
   * premise, `{serverUrl}api` in the cloud (from the profile call).
   */
  entryUrl(): Promise<string>
  /**
   * Sends a request with credentials attached. On a 401 it signs in again
   * once (new token, refreshed token, new handshake) and repeats the request;
   * a second 401 is returned to the caller as is. The request body, when
   * present, must be replayable (pass a string or bytes, not a stream).
   */
  send(request: Request): Promise<Response>
  /** Strings that must never appear in logs or errors (tokens, passwords). */
  secrets(): string[]
}
