/**
 * What the generated OpenAPI document cannot say by itself. fastify-type-provider-zod describes
 * every response as `application/json`; Tributary's error answers are `application/problem+json`
 * (RFC 9457, http/problem.ts), so the document says so for every status of 400 and above. A body
 * declared nullish (a request whose every field is optional, such as an abort or an expiration)
 * may be left out entirely: its `requestBody` is marked not required. Pure: takes the document
 * @fastify/swagger built and returns the one to serve.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export function problemJsonResponses<D extends object>(document: D): D {
  const paths = (document as Json)['paths'];
  if (!isObject(paths)) return document;
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const body = (item[method] as Json | undefined)?.['requestBody'];
      if (isObject(body) && acceptsNull(body)) body['required'] = false;
      const responses = (item[method] as Json | undefined)?.['responses'];
      if (!isObject(responses)) continue;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400 || !isObject(response)) continue;
        const content = response['content'];
        if (!isObject(content) || content['application/json'] === undefined) continue;
        response['content'] = { 'application/problem+json': content['application/json'] };
      }
    }
  }
  return document;
}

/** Whether the JSON body's schema admits null (zod's nullish: `anyOf [..., {type: 'null'}]`, `nullable`, or a type list with null). */
function acceptsNull(requestBody: Json): boolean {
  const content = requestBody['content'];
  const schema = isObject(content) && isObject(content['application/json']) ? content['application/json']['schema'] : undefined;
  if (!isObject(schema)) return false;
  const admitsNull = (s: unknown): boolean =>
    isObject(s) && (s['nullable'] === true || s['type'] === 'null' || (Array.isArray(s['type']) && s['type'].includes('null')));
  return admitsNull(schema) || (['anyOf', 'oneOf'] as const).some((k) => Array.isArray(schema[k]) && (schema[k] as unknown[]).some(admitsNull));
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
