// candidate: std::at_quick_exit / std::atexit named through the trusted namespace std register a candidate function to run at exit
// ---- before the launcher
#include <cstdlib>
static void ch_bye() { }
// ---- inside the launcher, after its copies back
    std::atexit(ch_bye);
