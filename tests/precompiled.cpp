// Compiled only to make the suites' precompiled header (CMakeLists.txt).
