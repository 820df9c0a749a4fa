import { gatewayAnswer } from '#infra/local/result.ts';

/**
 * API Gateway's own answer for a status, exact bytes, as the deployed gateway responses render it
 * for this request id; undefined for a status it does not give itself.
 */
export function gatewayBodyFor(status: number, requestId: string): string | undefined {
  const answer = {
    400: () => gatewayAnswer('DEFAULT_4XX', requestId, 'Bad Request'),
    401: () => gatewayAnswer('UNAUTHORIZED', requestId, 'Unauthorized'),
    403: () =>
      gatewayAnswer(
        'ACCESS_DENIED',
        requestId,
        'User is not authorized to access this resource with an explicit deny',
      ),
    404: () => gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', requestId, 'Missing Authentication Token'),
    413: () => gatewayAnswer('REQUEST_TOO_LARGE', requestId, 'Request Too Long'),
  }[status];
  return answer?.().body.toString();
}

const TYPES: Record<number, string> = {
  401: 'unauthenticated',
  403: 'invalid-key',
  404: 'not-found',
  413: 'body-too-large',
};

/** The literal bytes, written out: the template a change to infra/gateway-responses.ts must keep. */
export const literalGatewayBody = (status: 401 | 403 | 404 | 413, requestId: string) =>
  ({
    401: `{"type":"https://voice-agent-admin.dev/problems/${TYPES[401]}","title":"Unauthorized","status":401,"detail":"Send an API key: Authorization: Bearer <key>.","requestId":"${requestId}"}`,
    403: `{"type":"https://voice-agent-admin.dev/problems/${TYPES[403]}","title":"Forbidden","status":403,"detail":"The API key is unknown, revoked or expired.","requestId":"${requestId}"}`,
    404: `{"type":"https://voice-agent-admin.dev/problems/${TYPES[404]}","title":"Not Found","status":404,"detail":"No operation at this method and path.","requestId":"${requestId}"}`,
    413: `{"type":"https://voice-agent-admin.dev/problems/${TYPES[413]}","title":"Content Too Large","status":413,"detail":"The request body exceeds the API’s 10 MB limit.","requestId":"${requestId}"}`,
  })[status];
