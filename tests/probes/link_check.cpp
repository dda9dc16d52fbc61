// Linked with every object of hcp_probes (whole archive) and nothing but its own dependencies:
// the build fails if a topology reader starts to need the rules, the recipe loader or the layout.
int main() {
  return 0;
}
