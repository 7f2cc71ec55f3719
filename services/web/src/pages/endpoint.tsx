// Placeholder: this page is being written.
export function EndpointPage() {
  return <h1>EndpointPage</h1>;
}
