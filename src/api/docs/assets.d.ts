// Types for the Swagger UI files imported `with { type: 'file' }`: Bun gives their path (a
// /$bunfs/ path inside the compiled binary), never their content as a module.
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string;
  export default path;
}
