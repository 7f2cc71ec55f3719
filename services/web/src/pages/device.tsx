// Placeholder: this page is being written.
export function DevicePage() {
  return <h1>DevicePage</h1>;
}
