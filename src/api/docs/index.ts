// GET /docs: Swagger UI served entirely by this process. Its script and stylesheet come from the
// pinned npm package swagger-ui-dist, imported as files so `bun build --compile` embeds them in
// the binary; the page's CSP allows nothing but this origin, so no CDN is ever contacted.
import { Elysia } from 'elysia';
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };
import swaggerJs from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };

// Our own start-up script (a file, not inline, so script-src needs no 'unsafe-inline').
// validatorUrl: null, or Swagger UI would load a badge from validator.swagger.io.
const INIT_JS = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  withCredentials: false,
  displayRequestDuration: true
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>PayForge API</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script></body></html>
`;

/** Only this origin: the assets above, the document, and "Try it out" requests to this server. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

const ASSETS = new Map<string, { path: string | null; text: string | null; type: string }>([
  ['swagger-ui.css', { path: swaggerCss, text: null, type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { path: swaggerJs, text: null, type: 'text/javascript; charset=utf-8' }],
  ['init.js', { path: null, text: INIT_JS, type: 'text/javascript; charset=utf-8' }],
]);

const common = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'content-security-policy': DOCS_CSP };

export function docsRoutes() {
  const hide = { detail: { hide: true } } as const;
  return new Elysia({ name: 'api.docs' })
    .get('/docs', () => new Response(PAGE, { headers: { ...common, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } }), hide)
    .get(
      '/docs/assets/:file',
      ({ params }) => {
        const a = ASSETS.get(String(params.file));
        if (!a) return new Response('Not found', { status: 404, headers: { ...common, 'content-type': 'text/plain; charset=utf-8' } });
        const body = a.path !== null ? Bun.file(a.path) : a.text;
        return new Response(body, { headers: { ...common, 'content-type': a.type, 'cache-control': 'public, max-age=3600' } });
      },
      hide,
    );
}
