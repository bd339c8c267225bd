// vigil-yaml-man: prints vigil.yaml(5) (key_man.cc) for the build, which installs it.
#include <iostream>

#include "config/keys.h"

int main(int argc, char** argv) {
  std::cout << vigil::config::key_reference_man(argc > 1 ? argv[1] : "");
  return 0;
}
