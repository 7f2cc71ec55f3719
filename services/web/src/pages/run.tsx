// Placeholder: this page is being written.
export function RunPage() {
  return <h1>RunPage</h1>;
}
