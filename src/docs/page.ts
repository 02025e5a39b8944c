/** The docs page and its initialiser: Swagger UI from this server, pointed at this server's description without shared examples (try-it-out.ts). */
export const indexHtml = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>User Service API reference</title>
  <link rel="stylesheet" href="/apidocs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/apidocs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/apidocs/swagger-ui-bundle.js"></script>
  <script src="/apidocs/swagger-initializer.js"></script>
</body>
</html>
`;

export const initializerJs = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/apidocs/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

/** Swagger UI sets inline styles and data: images; everything else comes from this origin. */
export const docsContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');
