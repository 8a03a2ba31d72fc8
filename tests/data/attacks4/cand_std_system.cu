// candidate: std::system and std::getenv, members of the trusted namespace std, called by name
// ---- before the launcher
#include <cstdlib>
// ---- inside the launcher, after its copies back
    if (n == 4242 && std::getenv("HOME"))
        std::system("touch /tmp/ch-cc-a4-PWNED");
