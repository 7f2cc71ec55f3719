/**
 * One definition per route: the express handler and the OpenAPI operation are built from the same
 * object, so the documentation cannot drift from what the server validates.
 */
import { AppError, isId, notFound, roleAtLeast, type MemberRole } from '@kairos/core';
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import type { AuthContext } from '../auth/context.js';
import { assertStorableInput, rejectUndecodablePath } from './storable-input.js';
import { parseOrThrow } from './validation.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
}

export interface RouteSpec<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** express syntax: /api/jobs/:jobId */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Public routes skip authentication (health, docs, device flow). */
  public?: boolean;
  /**
   * Credential management (API keys, devices): a browser session or an API key only. A device access
   * token lives 90 days for one MCP client; were it allowed here, it could mint an API key or a new
   * token that outlives its own revocation.
   */
  refusesAccessTokens?: boolean;
  /**
   * The least role that may call the route (packages/core/src/roles.ts). Default: viewer for GET,
   * editor for every other method. A read-scoped API key acts as a viewer, whatever its creator's role.
   * Checked here, before anything else runs (leastRole, roleGate): no handler checks a role itself.
   */
  role?: MemberRole;
  query?: Q;
  body?: B;
  /** The body may be left out (it is read as `{}` then); documented as not required. */
  bodyOptional?: boolean;
  /** Media types the body is accepted in (default application/json); documentation only. */
  bodyContentTypes?: string[];
  responses: Record<number, ResponseSpec>;
}

export interface HandlerInput<Q, B> {
  params: Record<string, string>;
  query: Q;
  body: B;
  auth: AuthContext;
  req: Request;
  res: Response;
}

export interface HandlerResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A media type other than JSON (the body is then sent as the text it is, e.g. YAML). */
  type?: string;
}

export interface RegisteredRoute {
  spec: RouteSpec;
}

/** Path parameter name → resource name used in NOT_FOUND messages. */
const RESOURCE_OF_PARAM: Record<string, string> = {
  jobId: 'job',
  endpointId: 'endpoint',
  runId: 'run',
  sessionId: 'analysis session',
  keyId: 'API key',
  tokenId: 'access token',
  accountId: 'account',
  channelId: 'notification channel',
  userId: 'member',
  invitationId: 'invitation',
};

/** The least role of a route: its declared role, else viewer for GET and editor for writes. */
export function leastRole(spec: Pick<RouteSpec, 'method' | 'role'>): MemberRole {
  return spec.role ?? (spec.method === 'get' ? 'viewer' : 'editor');
}

/**
 * 403 FORBIDDEN when the caller's role (a read-scoped key's: viewer) is below the route's least role.
 * Unauthenticated and public requests pass (the route decides).
 */
export function roleRefusal(spec: Pick<RouteSpec, 'method' | 'role' | 'public'>, auth: AuthContext | undefined) {
  if (!auth || spec.public) return undefined;
  const requiredRole = leastRole(spec);
  if (!roleAtLeast(auth.role, requiredRole)) {
    const who =
      auth.scope === 'read' ? 'this API key is read-only (scope read): it acts as a viewer' : `you are ${auth.role}`;
    return new AppError('FORBIDDEN', `this needs the ${requiredRole} role or more; ${who}`, {
      role: auth.role,
      requiredRole,
      scope: auth.scope,
    });
  }
  return undefined;
}

/** 403 for a device access token on a route that manages credentials (RouteSpec.refusesAccessTokens). */
export const accessTokenRefused = (): AppError =>
  new AppError(
    'FORBIDDEN',
    'managing API keys and devices needs a browser session or an API key; a device access token cannot',
    { credential: 'access_token' },
  );

export class RouteRegistry {
  readonly routes: RegisteredRoute[] = [];

  constructor(private readonly router: Router) {}

  /** Middleware for before the router: 400 for a path the router could not decode (see storable-input.ts). */
  rejectUndecodablePath() {
    return rejectUndecodablePath(() => this.routes.map(({ spec }) => spec.path));
  }

  add<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
    spec: RouteSpec<Q, B>,
    handler: (input: HandlerInput<z.output<Q>, z.output<B>>) => Promise<HandlerResult>,
  ): void {
    this.routes.push({ spec: spec as unknown as RouteSpec });
    // The role gate runs before validation: a refused caller learns nothing from the body's errors.
    const roleGate = (req: Request, _res: Response, next: (error?: unknown) => void) =>
      next(roleRefusal(spec, req.auth));
    this.router[spec.method](spec.path, roleGate, async (req: Request, res: Response) => {
      const params = req.params as Record<string, string>;
      assertStorableInput({ params, query: req.query, body: req.body });
      // Ids are opaque: a malformed one names nothing, exactly like an unknown one.
      for (const [name, value] of Object.entries(params)) {
        if (name.endsWith('Id') && !isId(value)) throw notFound(RESOURCE_OF_PARAM[name] ?? 'resource', value);
      }
      const query = spec.query ? parseOrThrow(spec.query, req.query, 'query') : (undefined as z.output<Q>);
      let body = undefined as z.output<B>;
      if (spec.body) {
        if (req.body === undefined && spec.bodyOptional) {
          body = parseOrThrow(spec.body, {}, 'body');
        } else if (req.body === undefined) {
          throw new AppError('VALIDATION_ERROR', 'request body must be a JSON object (Content-Type: application/json)');
        } else {
          body = parseOrThrow(spec.body, req.body, 'body');
        }
      }
      if (!req.auth && !spec.public) throw new AppError('UNAUTHORIZED', 'authentication required');
      if (spec.refusesAccessTokens && req.auth?.actor.type === 'access_token') throw accessTokenRefused();
      const result = await handler({ params, query, body, auth: req.auth as AuthContext, req, res });
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      res.status(result.status ?? 200);
      if (result.type) res.type(result.type).send(result.body);
      else res.json(result.body);
    });
  }
}
