// Placeholder: this page is being written.
export function EndpointFormPage() {
  return <h1>EndpointFormPage</h1>;
}
