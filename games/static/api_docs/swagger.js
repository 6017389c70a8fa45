"use strict";
// Starts Swagger UI on the API docs page from the service's own file: the page's
// Content-Security-Policy runs no inline script. What the page knows (the schema's
// address, the settings) comes in the container's data attributes.
(() => {
  const container = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: container.dataset.schemaUrl,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    ...JSON.parse(container.dataset.settings),
  });
})();
