#pragma once
#define SAXPY_A 2.0f
