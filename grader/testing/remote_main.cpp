// main() of a compute process (course/remote.hpp): serves the lesson's handlers until
// the judge closes the pipe. Linked with the student's code and nothing of the tests.
#include "course/remote.hpp"

int main() {
  return course::remote::serve(course::remote::handlers());
}
