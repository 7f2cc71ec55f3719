// Placeholder: this page is being written.
export function SettingsPage() {
  return <h1>SettingsPage</h1>;
}
