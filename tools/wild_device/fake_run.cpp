// run.cu compiled as C++ against fake_driver.cpp: the runner's host side, for wild.device_fake.
#include "run.cu"
